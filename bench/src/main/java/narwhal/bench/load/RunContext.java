package narwhal.bench.load;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * What every request of one run shares: the arm, the workload, the targets, the window, and a
 * gauge of streams between their first token and their end.
 */
record RunContext(Arm arm, Workload workload, Targets targets, Window window, long timeoutNanos,
    AtomicInteger streaming) {

  RunContext(Arm arm, Workload workload, Targets targets, Window window, long timeoutNanos) {
    this(arm, workload, targets, window, timeoutNanos, new AtomicInteger());
  }
}
