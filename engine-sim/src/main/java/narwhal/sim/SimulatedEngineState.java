package narwhal.sim;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * What every connection of one engine shares: options, stats, the installed faults, the request
 * and prefill-response logs and the KV block allocator. Thread-safe.
 */
final class SimulatedEngineState {
  final SimOptions options;
  final SimStats stats = new SimStats();
  final RequestParser parser;
  final ReceivedLog<ReceivedRequest> received;
  final ReceivedLog<PrefillResponse> prefillResponses;
  final BootstrapRooms rooms = new BootstrapRooms();
  final ApiKeyGuard apiKey;
  private final AtomicInteger nextBlockId = new AtomicInteger();
  /** The bound HTTP port, known once listening; the bootstrap port defaults to it. */
  private volatile int httpPort;
  private volatile ActiveFaults faults;
  /** Read once per streamed response, at its start: a switch never reframes a response mid-way. */
  private volatile StreamFraming streamFraming;

  SimulatedEngineState(SimOptions options) {
    this.options = options;
    this.apiKey = new ApiKeyGuard(options.apiKey());
    this.parser = new RequestParser(options, this::bootstrapPort);
    this.received = new ReceivedLog<>(options.maxRecordedRequests());
    this.prefillResponses = new ReceivedLog<>(options.maxRecordedRequests());
    this.faults = new ActiveFaults(options.faults());
    this.streamFraming = options.streamFraming();
  }

  StreamFraming streamFraming() {
    return streamFraming;
  }

  void setStreamFraming(StreamFraming framing) {
    streamFraming = framing;
  }

  ActiveFaults faults() {
    return faults;
  }

  void setFaults(FaultPlan plan) {
    faults = new ActiveFaults(plan);
  }

  void listeningOn(int port) {
    httpPort = port;
  }

  /** The port {@code bootstrap_port} names when this engine prefills (SGLang mode). */
  int bootstrapPort() {
    return options.bootstrapPort() != 0 ? options.bootstrapPort() : httpPort;
  }

  /** Block ids cycle through the KV cache, as a real allocator's would. */
  int nextBlockId() {
    return Math.floorMod(nextBlockId.getAndIncrement(), options.kvCacheBlocks());
  }
}
