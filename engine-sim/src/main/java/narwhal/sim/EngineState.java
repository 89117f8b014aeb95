package narwhal.sim;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * What every connection of one engine shares: options, stats, the installed faults, the request
 * log and the KV block allocator. Thread-safe.
 */
final class EngineState {
  final SimOptions options;
  final SimStats stats = new SimStats();
  final RequestParser parser;
  final ReceivedLog received;
  private final AtomicInteger nextBlockId = new AtomicInteger();
  private volatile ActiveFaults faults;

  EngineState(SimOptions options) {
    this.options = options;
    this.parser = new RequestParser(options);
    this.received = new ReceivedLog(options.maxRecordedRequests());
    this.faults = new ActiveFaults(options.faults());
  }

  ActiveFaults faults() {
    return faults;
  }

  void setFaults(FaultPlan plan) {
    faults = new ActiveFaults(plan);
  }

  /** Block ids cycle through the KV cache, as a real allocator's would. */
  int nextBlockId() {
    return Math.floorMod(nextBlockId.getAndIncrement(), options.kvCacheBlocks());
  }
}
