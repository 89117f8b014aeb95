package narwhal.bench.load;

import io.netty.channel.EventLoop;

/**
 * Per-event-loop state of a run: the loop's client, its statistics and scratch parsers. Only
 * touched on that loop, except {@link #stats} which the driver reads after the run drained.
 */
final class LoopRuntime {
  final int index;
  final LoopClient client;
  final LoopStats stats = new LoopStats();
  final JsonStringScanner text = new JsonStringScanner("text");
  int roundRobin;
  long requestCounter;

  LoopRuntime(int index, LoopClient client) {
    this.index = index;
    this.client = client;
  }

  EventLoop loop() {
    return client.loop();
  }

  /** Cycles through the prompts, each loop from its own offset. */
  int nextPrompt(int prompts) {
    return (int) Math.floorMod(index * 7919L + requestCounter * 31L + roundRobin, (long) prompts);
  }

  String nextRequestId() {
    return "bench-" + index + "-" + (requestCounter++);
  }
}
