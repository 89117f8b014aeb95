package narwhal.sim;

import com.google.common.net.HostAndPort;
import com.google.common.net.InetAddresses;
import io.netty.util.concurrent.EventExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import narwhal.sim.gpu.StepLoop;
import narwhal.sim.gpu.StepScheduler;
import org.jspecify.annotations.Nullable;

/**
 * What every connection of one engine shares: options, stats, the installed faults, the request
 * and prefill-response logs, the KV block allocator, and in gpu timing mode the engine's step
 * loop. Thread-safe.
 */
final class SimulatedEngineState {
  /**
   * How long a producer keeps a prefill's KV for a decode when the attestation names no {@code
   * kv_lease_duration_s}: vLLM's {@code VLLM_NIXL_ABORT_REQUEST_TIMEOUT} default.
   */
  static final long DEFAULT_LEASE_SECONDS = 480;

  final SimOptions options;
  final SimStats stats = new SimStats();
  final RequestParser parser;
  final ReceivedLog<ReceivedRequest> received;
  final ReceivedLog<PrefillResponse> prefillResponses;
  final BootstrapRooms rooms = new BootstrapRooms();
  final ApiKeyGuard apiKey;
  /** Gpu timing mode: the engine's one step loop, which every response of the engine joins. */
  final @Nullable StepLoop gpu;
  /** The prefix cache's KV event publisher, or null when the engine publishes none. */
  final @Nullable KvEventPublisher kvEvents;
  /**
   * Unique to this engine's start, so a router can tell a restarted engine (whose measured
   * profile may no longer hold) from the one it measured: 64 random bits in hex.
   */
  final String processGeneration = String.format("%016x", ThreadLocalRandom.current().nextLong());
  private final AtomicInteger nextBlockId = new AtomicInteger();
  /** The bound HTTP port, known once listening; the bootstrap port defaults to it. */
  private volatile int httpPort;
  private volatile ActiveFaults faults;
  /** Read once per streamed response, at its start: a switch never reframes a response mid-way. */
  private volatile StreamFraming streamFraming;

  /** @param stepExecutor where the gpu mode's step loop runs (one of the engine's event loops) */
  SimulatedEngineState(SimOptions options, EventExecutor stepExecutor) {
    this.options = options;
    PrefixCaching caching = options.prefixCaching();
    this.kvEvents = caching.kvEvents() == null ? null : new KvEventPublisher(caching.kvEvents());
    KvEventPublisher publisher = kvEvents;
    this.gpu = options.gpu() == null ? null
        : new StepLoop(options.gpu(), StepScheduler.on(stepExecutor), options.seed(),
            leaseNanos(options), caching.enabled() ? caching.blockSize() : 0,
            publisher == null ? batch -> { } : publisher::publish);
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

  /**
   * Gpu timing mode: where a decode engine that pulled one of this engine's prefills tells it to
   * free the KV ({@link KvReleaseEndpoint}); null in the simple mode, which holds no KV.
   */
  @Nullable String kvReleaseUrl() {
    if (gpu == null) {
      return null;
    }
    String host = options.host();
    if (host.isEmpty() || (InetAddresses.isInetAddress(host) && InetAddresses.forString(host).isAnyLocalAddress())) {
      host = "127.0.0.1";
    }
    return "http://" + HostAndPort.fromParts(host, httpPort) + KvReleaseEndpoint.PATH;
  }

  /**
   * How long a prefill's KV stays resident for its decode: the attested {@code
   * kv_lease_duration_s} when it is a positive number (what the engine reports is what it does),
   * else vLLM's default.
   */
  static long leaseNanos(SimOptions options) {
    Object lease = options.attestation().get("kv_lease_duration_s");
    if (lease instanceof Number && ((Number) lease).doubleValue() > 0) {
      return Math.max(1, Math.round(((Number) lease).doubleValue() * 1e9));
    }
    return TimeUnit.SECONDS.toNanos(DEFAULT_LEASE_SECONDS);
  }

  /** Block ids cycle through the KV cache, as a real allocator's would. */
  int nextBlockId() {
    return Math.floorMod(nextBlockId.getAndIncrement(), options.kvCacheBlocks());
  }
}
