package narwhal.sim.gpu;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import narwhal.sim.gpu.Sequence.State;
import org.jspecify.annotations.Nullable;

/**
 * One engine's GPU: continuous batching with chunked prefill as vLLM V1 schedules it, one step at
 * a time, each step lasting what the {@link GpuProfile} says its batch costs.
 *
 * <p>A step is planned when it starts and its tokens appear when it ends:
 *
 * <ol>
 *   <li>Running sequences, in admission order, take the step's token budget: a decoding sequence
 *       one token, a prefilling one the next chunk of its prompt (as much as the budget leaves, so
 *       a long prompt spans several steps). A sequence that will produce a token needs one more KV
 *       token; when the cache has no room for it, the newest running sequence is preempted (its KV
 *       freed, it goes back to the front of the waiting queue and later recomputes its prompt and
 *       the tokens it produced as a prefill; its stream just pauses).
 *   <li>If nothing was preempted, waiting sequences are admitted in arrival order while budget,
 *       {@code max_num_seqs} and KV last. A sequence is admitted only when its context (plus the
 *       token its first step produces, if it produces one) fits in the free KV; otherwise it and
 *       everyone behind it wait (FIFO, like vLLM). A decode leg whose prompt's KV was pulled joins
 *       decoding at once.
 *   <li>At the step's end every decode, and every chunk that completed its prompt, produces a
 *       token; a sequence with all its tokens is done and frees its KV, or keeps it under a lease
 *       (a prefill leg waiting for its decode to pull the KV).
 * </ol>
 *
 * <p>An engine with nothing it can run is idle: no timer, no polling. Work arriving, KV freed (a
 * cancel, a lease released or expired) or a transfer landing wakes it.
 *
 * <p>Back-to-back steps are laid on the engine's own timeline: a step starts when the one before
 * it was due to end, not when its timer happened to fire. Netty's NIO loop wakes with millisecond
 * granularity, so a 6.5 ms step fires up to a millisecond late; the next one is shortened by that
 * lateness (by {@value #MAX_CATCH_UP_NANOS} ns at most, so a long stall is not followed by a burst)
 * and the engine keeps the model's pace on average.
 *
 * <p><b>Prefix cache</b> (when constructed with one, as vLLM runs with {@code
 * --enable-prefix-caching}): a sequence whose spec carries its token ids starts its prefill after
 * the longest run of its leading full blocks the cache holds (at most its context less one token:
 * vLLM always computes the last one), so only the uncached tokens cost prefill time; every full
 * block it computes (prompt and output) becomes cached, and a decode leg caches the prompt blocks its
 * KV transfer brought (and transfers only those its own cache lacked). Cached blocks no one holds
 * stay until the KV cache needs their room ({@link PrefixCache}). What the cache stores and evicts
 * is handed, batch by batch, to the event sink given at construction (vLLM's KV events).
 *
 * <p>{@link #submit}, {@link Sequence#cancel()}, {@link #releaseLease}, {@link #load()} and {@link
 * #prefixStats()} are thread-safe; everything else runs on the {@link StepScheduler}. Listeners are
 * called on their own executors.
 *
 * <p>Why one class of over 600 lines: planning a step (budget, preemption, admission), ending it
 * and keeping its prefix cache read and write the same queues, KV count and cached blocks, and its
 * invariants (the token budget, the KV the running sequences hold) are only checkable with all of
 * them in one place. The load snapshot is {@link StepLoad}, the cache's blocks {@link PrefixCache}.
 */
public final class StepLoop implements AutoCloseable {

  /** The most a late step timer is made up for by shortening the next step. */
  static final long MAX_CATCH_UP_NANOS = 2_000_000;

  private final GpuProfile profile;
  private final StepScheduler scheduler;
  private final long leaseNanos;
  private final SplittableRandom jitterRandom;
  private final KvCache kv;
  private final @Nullable PrefixCache prefix;
  private final java.util.function.Consumer<List<KvCacheEvent>> events;
  private volatile PrefixCacheStats prefixStats = PrefixCacheStats.NONE;
  private final ArrayDeque<Sequence> waiting = new ArrayDeque<>();
  /** Admitted sequences, oldest first: the newest is the first to be preempted. */
  private final List<Sequence> running = new ArrayList<>();
  /**
   * Finished prefills holding their KV, by lease id. Concurrent so that {@link #releaseLease}
   * answers at once from any thread: whoever removes an entry (release, expiry, cancel) frees it.
   */
  private final Map<String, Sequence> leases = new ConcurrentHashMap<>();
  private int transferring;
  private long leasedKvTokens;
  private @Nullable StepBatch current;
  private StepScheduler.@Nullable Cancellable stepTimer;
  /** An idle engine was woken: its next step starts once the tasks queued with the news have run. */
  private boolean startQueued;
  /** When the step under way (or the last one) is due to end on the engine's timeline. */
  private long plannedEnd;
  private long preemptions;
  private long steps;
  private boolean closed;
  private volatile StepLoad load;

  /**
   * @param seed seeds the jitter, so runs with the same seed and the same arrivals step alike
   * @param leaseNanos how long a finished prefill's KV stays resident when no decode pulls it
   */
  public StepLoop(GpuProfile profile, StepScheduler scheduler, long seed, long leaseNanos) {
    this(profile, scheduler, seed, leaseNanos, 0, batch -> { });
  }

  /**
   * @param prefixBlockSize the prefix cache's block size in tokens, or 0 for no prefix cache
   * @param events where the prefix cache's events go, one batch per step-loop task that changed it;
   *     called on the step loop's scheduler
   */
  public StepLoop(GpuProfile profile, StepScheduler scheduler, long seed, long leaseNanos, int prefixBlockSize,
      java.util.function.Consumer<List<KvCacheEvent>> events) {
    if (leaseNanos <= 0) {
      throw new IllegalArgumentException("leaseNanos must be positive, got " + leaseNanos);
    }
    this.profile = profile;
    this.scheduler = scheduler;
    this.leaseNanos = leaseNanos;
    this.jitterRandom = new SplittableRandom(seed);
    this.prefix = prefixBlockSize > 0 ? new PrefixCache(prefixBlockSize) : null;
    this.events = events;
    this.kv = new KvCache(profile.kvCapacityTokens(), prefix);
    this.load = new StepLoad(0, 0, 0, kv.capacity(), 0, 0, 0, 0);
  }

  public GpuProfile profile() {
    return profile;
  }

  /** The prefix cache's state as of the end of the step loop's last task; any thread. */
  public PrefixCacheStats prefixStats() {
    return prefixStats;
  }

  /** The prefix cache's block size, or 0 without one. */
  public int prefixBlockSize() {
    return prefix == null ? 0 : prefix.blockSize();
  }

  /**
   * Leading tokens of {@code tokenIds} the prefix cache holds now, as a new request would find
   * them (at most all but the last token, in whole blocks); completes on the step loop. 0 without
   * a prefix cache.
   */
  public java.util.concurrent.CompletableFuture<Integer> cachedTokens(int[] tokenIds) {
    java.util.concurrent.CompletableFuture<Integer> out = new java.util.concurrent.CompletableFuture<>();
    scheduler.execute(() -> {
      PrefixCache p = prefix;
      if (p == null || tokenIds.length == 0) {
        out.complete(0);
        return;
      }
      long[] hashes = hashes(tokenIds, tokenIds.length / p.blockSize(), new long[0]);
      out.complete(p.lookup(hashes, (tokenIds.length - 1) / p.blockSize()) * p.blockSize());
    });
    return out;
  }

  /**
   * Drops every cached block, as vLLM's {@code reset_prefix_cache} does, and says so ({@code
   * AllBlocksCleared}); refused (false) while any sequence holds cached blocks, as vLLM refuses.
   */
  public java.util.concurrent.CompletableFuture<Boolean> resetPrefixCache() {
    java.util.concurrent.CompletableFuture<Boolean> out = new java.util.concurrent.CompletableFuture<>();
    scheduler.execute(() -> {
      PrefixCache p = prefix;
      if (p == null) {
        out.complete(false);
        return;
      }
      long freed = p.reset();
      if (freed >= 0) {
        kv.release(freed);
      }
      out.complete(freed >= 0);
      publish();
    });
    return out;
  }

  /** The engine's state as of the end of the step loop's last task; any thread. */
  public StepLoad load() {
    return load;
  }

  /**
   * Why the engine could never run a request of this size (its prompt plus output exceed the KV
   * cache, so it could not run even alone), or null when it could.
   */
  public @Nullable String refusal(int promptTokens, int outputTokens) {
    long peak = (long) promptTokens + outputTokens;
    if (peak > kv.capacity()) {
      return "the request needs " + peak + " KV tokens (" + promptTokens + " in the prompt, " + outputTokens
          + " to generate) but the engine's KV cache holds " + kv.capacity();
    }
    return null;
  }

  /**
   * Queues a request; its listener hears of each token on {@code callbacks}. Any thread. Throws
   * {@link IllegalArgumentException} for a request that {@link #refusal could never run}: the
   * caller must have refused it.
   */
  public Sequence submit(SequenceSpec spec, Executor callbacks, SequenceListener listener) {
    String refusal = refusal(spec.promptTokens(), spec.outputTokens());
    if (refusal != null) {
      throw new IllegalArgumentException(refusal);
    }
    Sequence sequence = new Sequence(this, spec, callbacks, listener);
    scheduler.execute(() -> arrive(sequence));
    return sequence;
  }

  /**
   * A decode pulled the KV leased under {@code leaseId}: frees it. Any thread; true when the lease
   * was held (false once released, expired or cancelled, or for an unknown id).
   */
  public boolean releaseLease(String leaseId) {
    Sequence leased = leases.remove(leaseId);
    if (leased == null) {
      return false;
    }
    scheduler.execute(() -> dropLease(leased));
    return true;
  }

  /** Stops every timer and forgets every sequence; the engine is shutting down. Any thread. */
  @Override
  public void close() {
    try {
      scheduler.execute(this::closeOnLoop);
    } catch (RejectedExecutionException e) {
      // The scheduler is shut down already, and every timer of this loop with it.
    }
  }

  private void closeOnLoop() {
    closed = true;
    cancelTimer(stepTimer);
    stepTimer = null;
    current = null;
    for (Sequence sequence : leases.values()) {
      cancelTimer(sequence.timer);
    }
    leases.clear();
    waiting.clear();
    running.clear();
  }

  void cancel(Sequence sequence) {
    scheduler.execute(() -> cancelOnLoop(sequence));
  }

  private void arrive(Sequence sequence) {
    if (sequence.state != State.NEW || closed) {
      return; // cancelled before the loop saw it
    }
    if (!sequence.spec.promptResident()) {
      enqueue(sequence);
      return;
    }
    sequence.state = State.TRANSFERRING;
    transferring++;
    long transfer = sequence.spec.kvTransferNanos();
    int local = localHitTokens(sequence);
    if (local > 0 && transfer > 0) {
      // NixlConnector pulls only the blocks the consumer's own prefix cache lacks.
      transfer = Math.round(transfer * (double) (sequence.spec.promptTokens() - local) / sequence.spec.promptTokens());
    }
    if (transfer == 0) {
      transferred(sequence);
      return;
    }
    sequence.timer = scheduler.schedule(() -> transferred(sequence), transfer);
    publish();
  }

  private void transferred(Sequence sequence) {
    if (sequence.state != State.TRANSFERRING || closed) {
      return;
    }
    sequence.timer = null;
    transferring--;
    sequence.kvArrived();
    enqueue(sequence);
  }

  private void enqueue(Sequence sequence) {
    sequence.state = State.WAITING;
    waiting.addLast(sequence);
    wake();
  }

  private void cancelOnLoop(Sequence sequence) {
    switch (sequence.state) {
      case NEW:
        sequence.state = State.DONE;
        return;
      case TRANSFERRING:
        cancelTimer(sequence.timer);
        sequence.timer = null;
        transferring--;
        sequence.state = State.DONE;
        break;
      case WAITING:
        waiting.remove(sequence);
        sequence.state = State.DONE;
        break;
      case RUNNING:
        // A sequence in the step under way is skipped when the step ends.
        running.remove(sequence);
        freeKv(sequence);
        sequence.state = State.DONE;
        break;
      case LEASED:
        String leaseId = sequence.spec.leaseId();
        if (leaseId != null && leases.remove(leaseId, sequence)) {
          dropLease(sequence);
        }
        return;
      case DONE:
        return;
      default:
        throw new IllegalStateException(sequence.state.toString());
    }
    wake();
  }

  /**
   * Something changed that may let an idle engine run: it plans a step once the tasks already
   * queued have run, so requests arriving together are batched together (vLLM's engine core
   * drains its input queue before it schedules).
   */
  private void wake() {
    if (current == null && !closed && !startQueued) {
      startQueued = true;
      scheduler.execute(() -> {
        startQueued = false;
        if (current == null && !closed) {
          startStep(scheduler.nanoTime());
        }
        publish();
      });
    }
    publish();
  }

  /** Plans and starts a step at {@code start} on the engine's timeline, if there is anything to run. */
  private void startStep(long start) {
    StepBatch batch = plan();
    if (batch.isEmpty()) {
      return; // idle until work arrives or KV frees up
    }
    current = batch;
    steps++;
    long now = scheduler.nanoTime();
    plannedEnd = start + Math.round(batch.millis() * jitterFactor() * 1_000_000);
    stepTimer = scheduler.schedule(this::endStep, Math.max(0, plannedEnd - now));
  }

  private double jitterFactor() {
    double jitter = profile.jitter();
    return jitter == 0 ? 1 : 1 + jitter * (2 * jitterRandom.nextDouble() - 1);
  }

  private StepBatch plan() {
    StepBatch batch = new StepBatch(profile);
    int budget = profile.stepTokenBudget();
    long reserved = 0; // KV for the tokens this step will produce
    boolean preempted = false;
    for (int i = 0; i < running.size() && budget > 0; i++) {
      Sequence sequence = running.get(i);
      int tokens = sequence.decoding ? 1 : Math.min(sequence.context() - sequence.computed, budget);
      boolean produces = sequence.decoding || sequence.computed + tokens == sequence.context();
      if (produces) {
        while (kv.free() - reserved < 1 && sequence.state == State.RUNNING) {
          preempt(running.remove(running.size() - 1));
          preempted = true;
        }
        if (sequence.state != State.RUNNING) {
          break; // it was the newest itself: nothing after it is left either
        }
        reserved++;
      }
      batch.add(sequence, tokens, produces);
      budget -= tokens;
    }
    // vLLM admits nobody in a step that had to preempt: the cache is under pressure.
    while (!preempted && budget > 0 && running.size() < profile.maxNumSeqs() && !waiting.isEmpty()) {
      Sequence next = waiting.peekFirst();
      int context = next.context();
      int hitBlocks = hitBlocks(next);
      int hit = hitBlocks * blockSize();
      int tokens = next.promptResident ? 1 : Math.min(context - hit, budget);
      boolean produces = next.promptResident || hit + tokens == context;
      long needed = context - hit + (produces ? 1 : 0);
      // The idle cached blocks it hits stop being room for others once it holds them.
      long idleHit = prefix == null || hitBlocks == 0 ? 0 : prefix.idleTokensAmong(next.blockHashes, hitBlocks);
      if (kv.free() - idleHit - reserved < needed) {
        break; // FIFO: the head waits for room, and everyone behind it
      }
      waiting.pollFirst();
      admit(next, context, hitBlocks);
      if (produces) {
        reserved++;
      }
      batch.add(next, tokens, produces);
      budget -= tokens;
    }
    return batch;
  }

  private void admit(Sequence sequence, int context, int hitBlocks) {
    int hit = hitBlocks * blockSize();
    for (int b = 0; b < hitBlocks; b++) {
      sequence.held.add(prefix.acquire(sequence.blockHashes[b]));
    }
    kv.allocate(context - hit);
    sequence.kvTokens = context - hit;
    sequence.state = State.RUNNING;
    sequence.computed = hit;
    sequence.prefillFrom = hit;
    sequence.decoding = sequence.promptResident;
    running.add(sequence);
    if (prefix != null && sequence.spec.tokenIds() != null) {
      prefix.countLookup(sequence.spec.promptTokens() / blockSize(), hitBlocks);
    }
    // A pulled prompt's KV is all there (its transfer brought what the cache lacked): vLLM counts
    // it all as computed, and caches its full blocks now.
    sequence.admittedWithCached(sequence.promptResident ? sequence.spec.promptTokens() : hit);
    if (sequence.promptResident) {
      cacheFullBlocks(sequence, sequence.spec.promptTokens());
    }
  }

  /** The cache's block size, 1 without a cache (so a hit of 0 blocks is 0 tokens). */
  private int blockSize() {
    return prefix == null ? 1 : prefix.blockSize();
  }

  /** Leading blocks of {@code sequence}'s context the prefix cache holds, as a hit may use them (0 without token ids). */
  private int hitBlocks(Sequence sequence) {
    PrefixCache p = prefix;
    int[] ids = sequence.spec.tokenIds();
    if (p == null || ids == null) {
      return 0;
    }
    int context = Math.min(sequence.context(), ids.length);
    int max = (context - 1) / p.blockSize();
    sequence.blockHashes = hashes(ids, max, sequence.blockHashes);
    return p.lookup(sequence.blockHashes, max);
  }

  /** A transferring prompt's tokens the local cache already holds (the transfer skips them). */
  private int localHitTokens(Sequence sequence) {
    PrefixCache p = prefix;
    int[] ids = sequence.spec.tokenIds();
    if (p == null || ids == null) {
      return 0;
    }
    int max = (sequence.spec.promptTokens() - 1) / p.blockSize();
    sequence.blockHashes = hashes(ids, max, sequence.blockHashes);
    return p.lookup(sequence.blockHashes, max) * p.blockSize();
  }

  /** {@code known} extended to the hashes of the first {@code blocks} full blocks of {@code ids}. */
  private long[] hashes(int[] ids, int blocks, long[] known) {
    if (known.length >= blocks) {
      return known;
    }
    int bs = prefix.blockSize();
    long[] out = java.util.Arrays.copyOf(known, blocks);
    long parent = known.length == 0 ? BlockHashes.NONE : known[known.length - 1];
    for (int b = known.length; b < blocks; b++) {
      parent = BlockHashes.next(parent, ids, b * bs, bs);
      out[b] = parent;
    }
    return out;
  }

  /**
   * Caches {@code sequence}'s full blocks among its first {@code done} tokens that it does not
   * hold as cached blocks yet: each new block's tokens move from the sequence's own KV to the
   * cache (a block someone else cached already is shared instead, its own copy freed), and the new
   * ones become one {@code BlockStored} event.
   */
  private void cacheFullBlocks(Sequence sequence, int done) {
    PrefixCache p = prefix;
    int[] ids = sequence.spec.tokenIds();
    if (p == null || ids == null) {
      return;
    }
    int bs = p.blockSize();
    int full = Math.min(done, ids.length) / bs;
    int from = sequence.held.size();
    if (full <= from) {
      return;
    }
    sequence.blockHashes = hashes(ids, full, sequence.blockHashes);
    int runStart = -1; // the first block of the run of newly stored blocks, one event per run
    for (int b = from; b < full; b++) {
      long h = sequence.blockHashes[b];
      PrefixCache.Block block = p.store(h);
      if (block != null) {
        // Its tokens move from the sequence's own KV to the cache: the ledger is unchanged.
        if (runStart < 0) {
          runStart = b;
        }
      } else {
        // Cached by another sequence meanwhile: share that block and free this one's copy.
        block = p.acquire(h);
        kv.release(bs);
        if (runStart >= 0) {
          emitStored(sequence, runStart, b);
          runStart = -1;
        }
      }
      sequence.held.add(block);
      sequence.kvTokens -= bs;
    }
    if (runStart >= 0) {
      emitStored(sequence, runStart, full);
    }
  }

  /** One {@code BlockStored} for blocks {@code [first, end)} of {@code sequence}. */
  private void emitStored(Sequence sequence, int first, int end) {
    int bs = prefix.blockSize();
    int[] ids = sequence.spec.tokenIds();
    Long parent = first == 0 ? null : sequence.blockHashes[first - 1];
    prefix.stored(new KvCacheEvent.Stored(java.util.Arrays.copyOfRange(sequence.blockHashes, first, end), parent,
        java.util.Arrays.copyOfRange(ids, first * bs, end * bs), bs));
  }

  private void preempt(Sequence victim) {
    freeKv(victim);
    victim.state = State.WAITING;
    victim.promptResident = false; // its pulled KV is gone: it recomputes
    victim.decoding = false;
    victim.computed = 0;
    victim.prefillFrom = 0;
    waiting.addFirst(victim);
    preemptions++;
  }

  private void endStep() {
    StepBatch batch = current;
    current = null;
    stepTimer = null;
    if (batch == null || closed) {
      return;
    }
    for (StepBatch.Slot slot : batch.slots()) {
      Sequence sequence = slot.sequence();
      if (sequence.state != State.RUNNING) {
        continue; // cancelled during the step
      }
      if (!slot.decode()) {
        sequence.computed += slot.tokens();
      }
      if (slot.produces()) {
        kv.allocate(1);
        sequence.kvTokens++;
        sequence.generated++;
        sequence.decoding = true;
        sequence.tokenProduced();
      }
      // Blocks whose every token's KV is computed are cached (the newest token's KV is computed
      // by the step that decodes it).
      cacheFullBlocks(sequence, sequence.decoding ? sequence.context() - 1 : sequence.computed);
      if (slot.produces() && sequence.finished()) {
        finish(sequence);
      }
    }
    // Whatever arrived during this step is queued already. The next step starts when this one was
    // due to end, unless the timer was later than the catch-up allows.
    startStep(Math.max(plannedEnd, scheduler.nanoTime() - MAX_CATCH_UP_NANOS));
    publish();
  }

  private void finish(Sequence sequence) {
    running.remove(sequence);
    String leaseId = sequence.spec.leaseId();
    if (leaseId == null) {
      freeKv(sequence);
      sequence.state = State.DONE;
      return;
    }
    sequence.state = State.LEASED;
    leasedKvTokens += sequence.kvTokens;
    sequence.timer = scheduler.schedule(() -> {
      if (leases.remove(leaseId, sequence)) {
        dropLease(sequence);
      }
    }, leaseNanos);
    Sequence replaced = leases.put(leaseId, sequence);
    if (replaced != null) {
      dropLease(replaced); // the same id twice: the older KV is unreachable now
    }
  }

  /** Frees a lease that this thread removed from {@link #leases}. */
  private void dropLease(Sequence sequence) {
    if (sequence.state != State.LEASED || closed) {
      return;
    }
    cancelTimer(sequence.timer);
    sequence.timer = null;
    leasedKvTokens -= sequence.kvTokens;
    freeKv(sequence);
    sequence.state = State.DONE;
    wake();
  }

  private void freeKv(Sequence sequence) {
    kv.release(sequence.kvTokens);
    sequence.kvTokens = 0;
    if (prefix != null && !sequence.held.isEmpty()) {
      prefix.release(sequence.held); // cached blocks stay, idle, until their room is needed
      sequence.held.clear();
    }
  }

  private static void cancelTimer(StepScheduler.@Nullable Cancellable timer) {
    if (timer != null) {
      timer.cancel();
    }
  }

  private void publish() {
    PrefixCache p = prefix;
    long idle = p == null ? 0 : p.idleTokens();
    // vLLM's usage gauge counts idle cached blocks as free: they are room to be had.
    load = new StepLoad(running.size(), waiting.size() + transferring, kv.used() - idle, kv.capacity(),
        leases.size(), leasedKvTokens, preemptions, steps);
    if (p != null) {
      prefixStats = new PrefixCacheStats(p.blockSize(), p.blocks(), (int) (idle / p.blockSize()), p.queriedBlocks(),
          p.hitBlocks());
      if (p.hasEvents()) {
        List<KvCacheEvent> batch = p.drainEvents();
        try {
          events.accept(batch);
        } catch (RuntimeException e) {
          // The publisher's problem (its queue is full, it is closed): the engine goes on, as vLLM's does.
        }
      }
    }
  }
}
