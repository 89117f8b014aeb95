package narwhal.sim.gpu;

import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.jspecify.annotations.Nullable;

/**
 * One request inside a {@link StepLoop}: where it is (transferring its KV, waiting, running,
 * leased, done), how much of its prompt is computed, how many tokens it produced and how much KV it
 * holds. The response holding it may only {@link #cancel()} it; everything else is confined to the
 * step loop's scheduler.
 */
public final class Sequence {

  enum State {
    /** Submitted; the step loop has not seen it yet. */
    NEW,
    /** Its prompt's KV is on its way from the producer. */
    TRANSFERRING,
    /** In the waiting queue: holds no KV. */
    WAITING,
    /** Admitted to the batch: holds KV for its prompt and every token it produced. */
    RUNNING,
    /** Finished; its KV stays resident under its lease id for a decode to pull. */
    LEASED,
    /** Over; holds nothing. */
    DONE
  }

  private final StepLoop loop;
  final SequenceSpec spec;
  private final Executor callbacks;
  private final SequenceListener listener;

  State state = State.NEW;
  /** Tokens produced so far (kept across a preemption: the client already has them). */
  int generated;
  /** KV tokens held: the context while running, what it finished with while leased. */
  long kvTokens;
  /** The prompt's KV came from a producer and was not lost to a preemption since. */
  boolean promptResident;
  /** Producing a token per step; false while (re)computing its context as a prefill. */
  boolean decoding;
  /** While prefilling: tokens of the context computed so far. */
  int computed;
  /** Where this admission's prefill started: after the prefix-cache hit (0 without one). */
  int prefillFrom;
  /** The KV transfer's or the lease's timer. */
  StepScheduler.@Nullable Cancellable timer;
  /** Prefix cache: the cached blocks this sequence holds, its leading full blocks in order. */
  final java.util.List<PrefixCache.Block> held = new java.util.ArrayList<>();
  /** Prefix cache: the engine's hash of each full block of the token ids, computed as far as needed. */
  long[] blockHashes = new long[0];
  /**
   * Prompt tokens the engine did not compute for this request, as vLLM reports them ({@code
   * usage.prompt_tokens_details.cached_tokens}): the prefix-cache hit at its first admission, and
   * for a decode leg the tokens its KV transfer brought too. -1 until admitted.
   */
  private volatile int cachedTokens = -1;

  Sequence(StepLoop loop, SequenceSpec spec, Executor callbacks, SequenceListener listener) {
    this.loop = loop;
    this.spec = spec;
    this.callbacks = callbacks;
    this.listener = listener;
    this.promptResident = spec.promptResident();
  }

  /**
   * The response is over without handing this sequence's KV to anyone: takes it out of the loop
   * wherever it is (transfer, queue, batch, lease) and frees its KV. Idempotent, thread-safe; a
   * sequence whose lease a decode already released, or that finished unleased, is left as it is.
   */
  public void cancel() {
    loop.cancel(this);
  }

  /** See {@link #cachedTokens}: what the engine reports as cached for this request; 0 before admission. Any thread. */
  public int cachedTokens() {
    return Math.max(0, cachedTokens);
  }

  void admittedWithCached(int tokens) {
    if (cachedTokens < 0) {
      cachedTokens = tokens;
    }
  }

  /** Prompt plus the tokens produced: what the sequence's KV holds while it runs. */
  int context() {
    return spec.promptTokens() + generated;
  }

  boolean finished() {
    return generated >= spec.outputTokens();
  }

  void tokenProduced() {
    notify(listener::tokenProduced);
  }

  void kvArrived() {
    notify(listener::kvArrived);
  }

  private void notify(Runnable call) {
    try {
      callbacks.execute(call);
    } catch (RejectedExecutionException e) {
      // The response's event loop is shutting down, and the response with it: the loop goes on.
    }
  }

  @Override
  public String toString() {
    return "Sequence{" + state + ", prompt=" + spec.promptTokens() + ", generated=" + generated + "/"
        + spec.outputTokens() + ", kv=" + kvTokens + "}";
  }
}
