package narwhal.core.profile.measure;

import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import narwhal.config.EngineSpec;
import narwhal.core.legs.EngineClient;
import narwhal.core.legs.LegLimits;
import narwhal.core.profile.DecodeSample;
import narwhal.core.profile.EngineGeneration;
import narwhal.core.profile.GenerationSource;
import narwhal.core.profile.PrefillSample;
import narwhal.core.profile.ProfileFits;
import narwhal.core.profile.ProfileRow;
import narwhal.time.Scheduler;
import org.jspecify.annotations.Nullable;

/**
 * Measures one engine for its profile, on one scheduler, never blocking it:
 *
 * <ol>
 *   <li>its process generation (the row is bound to it);
 *   <li>a warm-up, timed by nobody: {@link #WARM_UP_PREFILLS} prefill legs of the shortest prompt,
 *       one of the longest, then batches of the largest size with the short prompt until two in a
 *       row agree within 10 % (at most {@link #WARM_UP_BATCHES}). The first requests an engine (or
 *       its host's JIT, or its CUDA graphs, or this process's JIT) sees are slower than the rest,
 *       and a profile of them would price every request as a cold one;
 *   <li>prefill: for each prompt length of the plan, {@code repeats} prefill legs one after
 *       another (the leg the router itself sends, through the router's {@link EngineClient}, so
 *       dialect, TLS and credentials are the serving path's), each timed from the leg's start to
 *       the producer's answer; the median of the repeats is the sample;
 *   <li>decode: for each batch size k and prompt length, k streams at once, read by {@link
 *       SteadyWindow};
 *   <li>the generation again: an engine that restarted meanwhile measured two processes;
 *   <li>the fits, and their verdict against the limits.
 * </ol>
 *
 * Prefill may spend {@link #PREFILL_SHARE} of what the warm-up leaves of the budget; decode the rest. What the budget leaves
 * unmeasured is left out of the fits and said in the notes. The engine must be idle meanwhile:
 * the router is not serving while it is profiled.
 */
public final class EngineProfiler {

  /** Untimed prefill legs of the shortest prompt before any is timed. */
  static final int WARM_UP_PREFILLS = 3;
  /** The most untimed decode batches before the measured ones. */
  static final int WARM_UP_BATCHES = 4;
  /** How close two warm-up batches' intervals must be for the engine to count as settled. */
  static final double SETTLED = 0.10;

  /** What to try when the decode fit is off: most often something else ran on the engine meanwhile. */
  private static final String FIT_ADVICE = ": measure it again with nothing else running on the engine or its host, "
      + "or raise --decode-tokens for a longer steady stretch per batch (each stream generated ";

  /** The part of the post-warm-up budget prefill may spend: decode's batches take longer. */
  static final double PREFILL_SHARE = 0.35;

  /**
   * How legs are bounded and fits judged.
   *
   * @param model the fleet's model, named in every request
   * @param prefillLimits each prefill leg ({@code serving.prefill_timeout_s})
   * @param decodeLimits each stream: its first token follows a prefill of its own prompt
   * @param maxFitMape {@code profiles.max_decode_fit_mape}
   * @param maxCvMape {@code profiles.max_decode_cv_mape}
   */
  public record Settings(String model, LegLimits prefillLimits, LegLimits decodeLimits, double maxFitMape,
      double maxCvMape) {
    public Settings {
      Objects.requireNonNull(model, "model");
    }
  }

  private final EngineClient client;
  private final GenerationSource generations;
  private final Settings settings;
  private final Scheduler loop;
  private final Clock wallClock;

  public EngineProfiler(EngineClient client, GenerationSource generations, Settings settings, Scheduler loop,
      Clock wallClock) {
    this.client = client;
    this.generations = generations;
    this.settings = settings;
    this.loop = loop;
    this.wallClock = wallClock;
  }

  /** Measures {@code engine} by {@code plan}; completes on the scheduler, never exceptionally. */
  public CompletableFuture<EngineMeasurement> measure(EngineSpec engine, ProfilingPlan plan) {
    CompletableFuture<EngineMeasurement> out = new CompletableFuture<>();
    loop.runInLoop(() -> new Run(engine, plan, out).start());
    return out;
  }

  /** One engine's measurement: its state is confined to the scheduler. */
  private final class Run {
    private final EngineSpec engine;
    private final ProfilingPlan plan;
    private final CompletableFuture<EngineMeasurement> out;
    private final TokenPrompts prompts;
    private final List<PrefillSample> prefillSamples = new ArrayList<>();
    private final List<DecodeSample> decodeSamples = new ArrayList<>();
    private final List<String> problems = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();
    private long startNanos;
    private long prefillDeadline;
    private long deadline;
    private @Nullable EngineGeneration before;

    Run(EngineSpec engine, ProfilingPlan plan, CompletableFuture<EngineMeasurement> out) {
      this.engine = engine;
      this.plan = plan;
      this.out = out;
      this.prompts = new TokenPrompts(settings.model(), engine.iid().hashCode() * 31L + plan.hashCode());
    }

    void start() {
      startNanos = loop.nanoTime();
      prefillDeadline = startNanos + (long) (plan.budgetNanos() * PREFILL_SHARE);
      deadline = startNanos + plan.budgetNanos();
      generations.current(engine, loop).whenComplete((g, error) -> loop.runInLoop(() -> {
        before = g != null ? g : EngineGeneration.unknown(String.valueOf(error));
        warmUp(0);
      }));
    }

    // ---- warm-up ----

    private void warmUp(int leg) {
      List<Long> lengths = plan.prefillLengths();
      if (leg <= WARM_UP_PREFILLS) {
        long tokens = leg < WARM_UP_PREFILLS ? lengths.get(0) : lengths.get(lengths.size() - 1);
        client.prefill(engine, prompts.completion(tokens, 1, false), settings.prefillLimits(), loop)
            .whenComplete((result, error) -> loop.runInLoop(() -> {
              if (error != null) {
                fail("a warm-up prefill leg of " + tokens + " prompt tokens failed: " + cause(error).getMessage()
                    + promptAdvice(tokens));
              } else {
                warmUp(leg + 1);
              }
            }));
        return;
      }
      warmUpDecode(1, Double.NaN);
    }

    /**
     * Batches of the largest size with the short prompt until two in a row agree within {@link
     * #SETTLED}: a process that is still compiling its hot paths (this one, or the engine's host)
     * answers slower, and unevenly, for a while.
     */
    private void warmUpDecode(int batch, double previousInterval) {
      long shortest = plan.decodePromptLengths().get(0);
      int k = plan.decodeSequences().get(plan.decodeSequences().size() - 1);
      new DecodeBatch(client, engine, settings.decodeLimits(), loop).run(prompts, k, shortest, plan.decodeTokens())
          .whenComplete((sample, error) -> loop.runInLoop(() -> {
            if (error != null) {
              fail("a warm-up batch of " + k + " streams failed: " + cause(error).getMessage() + batchAdvice(k));
              return;
            }
            double interval = sample.map(DecodeSample::intervalSeconds).orElse(Double.NaN);
            boolean settled = Math.abs(interval - previousInterval) <= SETTLED * previousInterval;
            if (settled || batch == WARM_UP_BATCHES) {
              if (!settled) {
                notes.add("the engine's decode interval had not settled after " + WARM_UP_BATCHES
                    + " warm-up batches: the measurement may be noisy");
              }
              // Prefill's share is of what the warm-up left: a slow engine's warm-up batches must
              // not eat the prefill measurement whole.
              long now = loop.nanoTime();
              prefillDeadline = now + (long) (Math.max(0, deadline - now) * PREFILL_SHARE);
              prefillLength(0);
            } else {
              warmUpDecode(batch + 1, interval);
            }
          }));
    }

    // ---- prefill ----

    private void prefillLength(int index) {
      if (index == plan.prefillLengths().size()) {
        decodeBatch(0, 0);
        return;
      }
      if (loop.nanoTime() >= prefillDeadline) {
        notes.add("the budget let prefill measure " + index + " of " + plan.prefillLengths().size()
            + " prompt lengths (up to " + (index == 0 ? 0 : plan.prefillLengths().get(index - 1)) + " tokens)");
        decodeBatch(0, 0);
        return;
      }
      long tokens = plan.prefillLengths().get(index);
      prefillRepeat(tokens, new double[plan.repeats()], 0, () -> prefillLength(index + 1));
    }

    private void prefillRepeat(long tokens, double[] seconds, int repeat, Runnable next) {
      if (repeat == seconds.length) {
        prefillSamples.add(new PrefillSample(tokens, median(seconds)));
        next.run();
        return;
      }
      client.prefill(engine, prompts.completion(tokens, 1, false), settings.prefillLimits(), loop)
          .whenComplete((result, error) -> loop.runInLoop(() -> {
            if (error != null) {
              fail("a prefill leg of " + tokens + " prompt tokens failed: " + cause(error).getMessage()
                  + promptAdvice(tokens));
              return;
            }
            seconds[repeat] = Math.max(1e-9, (result.completedNanos() - result.legStartedNanos()) / 1e9);
            prefillRepeat(tokens, seconds, repeat + 1, next);
          }));
    }

    // ---- decode ----

    private void decodeBatch(int seqIndex, int promptIndex) {
      if (promptIndex == plan.decodePromptLengths().size()) {
        decodeBatch(seqIndex + 1, 0);
        return;
      }
      int batches = plan.decodeSequences().size() * plan.decodePromptLengths().size();
      int done = seqIndex * plan.decodePromptLengths().size() + promptIndex;
      if (seqIndex == plan.decodeSequences().size()) {
        finish();
        return;
      }
      if (loop.nanoTime() >= deadline) {
        notes.add("the budget let decode measure " + done + " of " + batches + " batches");
        finish();
        return;
      }
      int k = plan.decodeSequences().get(seqIndex);
      long promptTokens = plan.decodePromptLengths().get(promptIndex);
      new DecodeBatch(client, engine, settings.decodeLimits(), loop).run(prompts, k, promptTokens, plan.decodeTokens())
          .whenComplete((sample, error) -> loop.runInLoop(() -> {
            if (error != null) {
              fail("a batch of " + k + " streams of " + promptTokens + " prompt tokens failed: "
                  + cause(error).getMessage() + batchAdvice(k));
              return;
            }
            if (sample.isEmpty()) {
              notes.add("the batch of " + k + " streams of " + promptTokens + " prompt tokens never had all its "
                  + "streams generating at once (the engine queued some): left out; if the engine runs fewer than "
                  + k + " sequences at once, set --max-seqs to its batch limit (vLLM's --max-num-seqs)");
            } else {
              decodeSamples.add(sample.get());
            }
            decodeBatch(seqIndex, promptIndex + 1);
          }));
    }

    // ---- the end ----

    private void finish() {
      generations.current(engine, loop).whenComplete((after, error) -> loop.runInLoop(() -> {
        EngineGeneration g = after != null && after.isKnown() ? after : before;
        if (before != null && before.isKnown() && after != null && after.isKnown()
            && !before.value().equals(after.value())) {
          problems.add("the engine restarted while it was measured (generation " + before.value() + " became "
              + after.value() + "): measure it again");
        }
        conclude(g == null || !g.isKnown() ? null : g.value());
      }));
    }

    private void conclude(@Nullable String generation) {
      ProfileFits.Prefill prefill = null;
      ProfileFits.Decode decode = null;
      try {
        prefill = ProfileFits.prefill(prefillSamples);
      } catch (IllegalArgumentException e) {
        problems.add("prefill cannot be fitted from " + prefillSamples.size() + " prompt lengths: " + e.getMessage()
            + ": raise --budget-s (this engine had " + budgetSeconds() + " s) or lower --max-prompt-tokens");
      }
      try {
        decode = ProfileFits.decode(decodeSamples);
      } catch (IllegalArgumentException e) {
        problems.add("decode cannot be fitted from " + decodeSamples.size() + " batches: " + e.getMessage()
            + ": raise --budget-s (this engine had " + budgetSeconds() + " s), lower --decode-tokens (each stream "
            + "generated " + plan.decodeTokens() + ") or lower --max-seqs");
      }
      if (decode != null && decode.quality().mape() > settings.maxFitMape()) {
        problems.add(String.format(java.util.Locale.ROOT, "decode fit MAPE %.1f %% exceeds "
            + "profiles.max_decode_fit_mape %.1f %%", decode.quality().mape() * 100, settings.maxFitMape() * 100)
            + FIT_ADVICE + plan.decodeTokens() + ")");
      }
      if (decode != null && decode.quality().cvMape() > settings.maxCvMape()) {
        problems.add(String.format(java.util.Locale.ROOT, "decode CV MAPE %.1f %% exceeds "
            + "profiles.max_decode_cv_mape %.1f %%", decode.quality().cvMape() * 100, settings.maxCvMape() * 100)
            + FIT_ADVICE + plan.decodeTokens() + ")");
      }
      ProfileRow row = null;
      if (problems.isEmpty() && prefill != null && decode != null) {
        row = new ProfileRow(engine.iid(), engine.url().toString(), generation, wallClock.instant(), prefill.model(),
            prefill.quality().samples(), decode.model(), decode.quality().samples(), decode.quality().mape(),
            decode.quality().cvMape());
      }
      out.complete(new EngineMeasurement(engine.iid(), prefill, decode, row, problems, notes,
          loop.nanoTime() - startNanos));
    }

    private long budgetSeconds() {
      return Math.round(plan.budgetNanos() / 1e9);
    }

    /** What to change when a prompt of {@code tokens} was refused or timed out. */
    private String promptAdvice(long tokens) {
      return tokens > plan.prefillLengths().get(0) ? "; if the engine refuses prompts that long, lower "
          + "--max-prompt-tokens below " + tokens : "";
    }

    /** What to change when a batch of {@code k} streams failed (a refusal of that many at once, often). */
    private String batchAdvice(int k) {
      return k > 1 ? "; if the engine refuses " + k + " streams at once, set --max-seqs to its batch limit" : "";
    }

    private void fail(String problem) {
      problems.add(problem);
      out.complete(new EngineMeasurement(engine.iid(), null, null, null, problems, notes, loop.nanoTime() - startNanos));
    }
  }

  static double median(double[] values) {
    double[] v = values.clone();
    Arrays.sort(v);
    int mid = v.length / 2;
    return v.length % 2 == 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
  }

  static Throwable cause(Throwable t) {
    return t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
  }
}
