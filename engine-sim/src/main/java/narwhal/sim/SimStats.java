package narwhal.sim;

import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * Live counters and gauges of one {@link SimEngine}, readable from any thread.
 *
 * <p>"Requests" are calls to {@code /v1/completions} and {@code /v1/chat/completions}; "streams"
 * are the streaming ones among them. A response is active from the moment it starts (after any
 * {@code delay-headers}) until its last byte is written, the engine aborts it, or the client goes
 * away — the last case counts as cancelled, detected as soon as the connection closes.
 */
public final class SimStats {
  private final AtomicLong requests = new AtomicLong();
  private final AtomicLong prefills = new AtomicLong();
  private final AtomicLong kvPulls = new AtomicLong();
  private final AtomicLong activeStreams = new AtomicLong();
  private final AtomicLong cancelledStreams = new AtomicLong();
  private final AtomicLong activeRequests = new AtomicLong();
  private final AtomicLong cancelledRequests = new AtomicLong();
  private final AtomicLong waitingRequests = new AtomicLong();
  private final AtomicLong openConnections = new AtomicLong();
  private final AtomicLong totalConnections = new AtomicLong();
  private final AtomicLong promptTokens = new AtomicLong();
  private final AtomicLong generationTokens = new AtomicLong();
  private final AtomicLong finishedStop = new AtomicLong();
  private final AtomicLong finishedLength = new AtomicLong();
  private final AtomicLong finishedAbort = new AtomicLong();
  private final AtomicLong activeKvBlocks = new AtomicLong();
  private final AtomicLong mostActiveRequests = new AtomicLong();

  SimStats() {}

  /** Completion and chat requests received (valid or not, faulted or not). */
  public long requests() {
    return requests.get();
  }

  /**
   * Prefill legs: requests carrying {@code kv_transfer_params.do_remote_decode: true} (vLLM mode),
   * or a rendezvous naming this engine (SGLang mode).
   */
  public long prefills() {
    return prefills.get();
  }

  /**
   * Decode requests that "pulled" KV: vLLM mode, those carrying a usable NIXL descriptor; SGLang
   * mode, those whose bootstrap room became ready.
   */
  public long kvPulls() {
    return kvPulls.get();
  }

  /**
   * The most responses that were active at once since the engine started or since {@link
   * #resetMostActiveRequests}: exact, since each start compares the count it made.
   */
  public long mostActiveRequests() {
    return mostActiveRequests.get();
  }

  /** Starts {@link #mostActiveRequests} over from the responses active now. */
  public void resetMostActiveRequests() {
    mostActiveRequests.set(activeRequests.get());
  }

  /** Streaming responses currently open. */
  public long activeStreams() {
    return activeStreams.get();
  }

  /** Streaming responses whose client closed the connection before the end. */
  public long cancelledStreams() {
    return cancelledStreams.get();
  }

  /** Responses (streaming or not) currently being generated. */
  public long activeRequests() {
    return activeRequests.get();
  }

  /** Responses (streaming or not) whose client closed the connection before the end. */
  public long cancelledRequests() {
    return cancelledRequests.get();
  }

  /** Requests held back by a {@code delay-headers} fault. */
  public long waitingRequests() {
    return waitingRequests.get();
  }

  /** TCP connections currently open. */
  public long openConnections() {
    return openConnections.get();
  }

  /** TCP connections accepted since start. */
  public long totalConnections() {
    return totalConnections.get();
  }

  /** Prompt tokens of every response started. */
  public long promptTokens() {
    return promptTokens.get();
  }

  /** Tokens generated (streamed or accumulated). */
  public long generationTokens() {
    return generationTokens.get();
  }

  long finishedStop() {
    return finishedStop.get();
  }

  long finishedLength() {
    return finishedLength.get();
  }

  long finishedAbort() {
    return finishedAbort.get();
  }

  long activeKvBlocks() {
    return activeKvBlocks.get();
  }

  void requestReceived(boolean prefill, boolean kvPull) {
    requests.incrementAndGet();
    if (prefill) {
      prefills.incrementAndGet();
    }
    if (kvPull) {
      kvPulls.incrementAndGet();
    }
  }

  void kvPulled() {
    kvPulls.incrementAndGet();
  }

  void requestReceived() {
    requests.incrementAndGet();
  }

  void waitingChanged(int delta) {
    waitingRequests.addAndGet(delta);
  }

  void responseStarted(boolean streaming, int prompt, int kvBlocks) {
    mostActiveRequests.accumulateAndGet(activeRequests.incrementAndGet(), Math::max);
    if (streaming) {
      activeStreams.incrementAndGet();
    }
    promptTokens.addAndGet(prompt);
    activeKvBlocks.addAndGet(kvBlocks);
  }

  void tokenGenerated() {
    generationTokens.incrementAndGet();
  }

  /** A response is over; {@code finishReason} is null when it did not finish normally. */
  void responseEnded(
      boolean streaming, int kvBlocks, boolean cancelledByClient, @Nullable String finishReason) {
    activeRequests.decrementAndGet();
    if (streaming) {
      activeStreams.decrementAndGet();
    }
    activeKvBlocks.addAndGet(-kvBlocks);
    if (cancelledByClient) {
      cancelledRequests.incrementAndGet();
      if (streaming) {
        cancelledStreams.incrementAndGet();
      }
    }
    if ("stop".equals(finishReason)) {
      finishedStop.incrementAndGet();
    } else if ("length".equals(finishReason)) {
      finishedLength.incrementAndGet();
    } else {
      finishedAbort.incrementAndGet();
    }
  }

  void connectionOpened() {
    openConnections.incrementAndGet();
    totalConnections.incrementAndGet();
  }

  void connectionClosed() {
    openConnections.decrementAndGet();
  }

  @Override
  public String toString() {
    return "SimStats{requests="
        + requests()
        + ", prefills="
        + prefills()
        + ", kvPulls="
        + kvPulls()
        + ", activeStreams="
        + activeStreams()
        + ", cancelledStreams="
        + cancelledStreams()
        + ", activeRequests="
        + activeRequests()
        + ", cancelledRequests="
        + cancelledRequests()
        + ", openConnections="
        + openConnections()
        + "}";
  }
}
