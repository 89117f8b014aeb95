package narwhal.server;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.io.PrintStream;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import narwhal.config.EngineSpec;
import narwhal.config.FleetConfig;
import narwhal.core.checks.EngineFacts;
import narwhal.core.legs.AuthorizingTransport;
import narwhal.core.legs.EngineClient;
import narwhal.core.legs.LegLimits;
import narwhal.core.profile.ProfileFits;
import narwhal.core.profile.measure.EngineMeasurement;
import narwhal.core.profile.measure.EngineProfiler;
import narwhal.core.profile.measure.ProfilingPlan;
import narwhal.engine.http.NettyEngineTransport;
import narwhal.netty.EventLoopScheduler;
import narwhal.spi.EngineDialects;
import narwhal.spi.EngineTransport;
import narwhal.spi.ExchangeOptions;
import narwhal.spi.HandoffStyle;
import narwhal.time.Scheduler;
import org.jspecify.annotations.Nullable;

/**
 * Measures engines for {@code narwhal profile}, one after another (an engine is timed alone, on
 * an otherwise quiet machine and network), on an event loop of its own through the router's own
 * engine client, so dialect, TLS and credentials are the serving path's. Blocks the calling thread
 * (the command's main thread) until each engine is done; the measuring itself never blocks the loop.
 */
final class ProfileRun {

  /**
   * The operator's choices.
   *
   * @param budget the whole run's time, shared equally by the engines measured
   * @param maxPromptTokens the longest prompt (default: half the engine's context)
   */
  record Options(Duration budget, long maxPromptTokens, int maxSequences, int decodeTokens, int repeats) {}

  /**
   * What the engine reported besides its measurement, for the table.
   *
   * @param skipped why the engine was not measured at all (it cannot be), or null when it was
   * @param plannedMaxSeqs the largest batch the plan asked for ({@code --max-seqs})
   * @param budgetSeconds the engine's share of {@code --budget-s}
   */
  record Result(EngineSpec engine, EngineMeasurement measurement, String plan, @Nullable String skipped,
      int plannedMaxSeqs, long budgetSeconds) {

    Result(EngineSpec engine, EngineMeasurement measurement, String plan) {
      this(engine, measurement, plan, null, 0, 0);
    }

    /**
     * Why this engine's written row would mislead, or null: the role controller reads the largest
     * batch measured as the engine's sequence capacity, so a profile the budget cut short at small
     * batches makes the engine look full long before it is.
     */
    @Nullable String smallBatchWarning() {
      ProfileFits.Decode d = measurement.decode();
      if (!measurement.passed() || d == null || d.model().maxSequences() >= plannedMaxSeqs) {
        return null;
      }
      int got = d.model().maxSequences();
      return "decode was measured with batches of at most " + got + " streams, not the " + plannedMaxSeqs + " asked "
          + "for (--max-seqs): the role controller reads " + got + " as this engine's sequence capacity and will "
          + "judge its decode pool full at " + got + " streams. Raise --budget-s (this engine had " + budgetSeconds
          + " s), lower --decode-tokens, or set --max-seqs to the batch the engine really runs, and profile it again";
    }

    /** Measured and missed, as opposed to passed or not measurable at all. */
    boolean failed() {
      return skipped == null && !measurement.passed();
    }
  }

  /** Used when an engine reports no context length ({@code max_model_len}). */
  static final long DEFAULT_CONTEXT = 8192;
  /** Head-room past an engine's budget for the leg in flight when it ran out. */
  private static final Duration SLACK = Duration.ofSeconds(10);

  private ProfileRun() {}

  static List<Result> measure(FleetConfig config, List<EngineSpec> engines, Options options, PrintStream progress) {
    EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    try (NettyEngineTransport netty = new NettyEngineTransport(group)) {
      EngineTransport transport = AuthorizingTransport.wrap(netty, config.engine().engineApiKey());
      EngineDialects dialects = EngineDialects.discover();
      EngineClient client = new EngineClient(transport, dialects);
      EngineFacts facts = new EngineFacts(config, transport, dialects);
      Scheduler loop = EventLoopScheduler.of((EventLoop) group.next());
      EngineProfiler profiler = new EngineProfiler(client, facts, settings(config), loop, Clock.systemUTC());
      long perEngine = options.budget().toNanos() / Math.max(1, engines.size());
      List<Result> results = new ArrayList<>();
      for (EngineSpec engine : engines) {
        if (client.handoffStyle(engine) == HandoffStyle.CONCURRENT) {
          // Not a failure: nothing about the engine is wrong, and preflight's gate does not ask for its row.
          results.add(new Result(engine, failed(engine, "not measured"), "-", engine.dialect() + " hands KV over "
              + "concurrently: its prefill leg answers only once a decode engine has joined, so its prefill time "
              + "cannot be told from the pair's; preflight does not ask for its row, and serve admits and places "
              + "its requests unpriced", 0, 0));
          progress.println("narwhal profile: " + engine.iid() + " skipped (" + engine.dialect() + ": see below)");
          continue;
        }
        OptionalLong context = await(facts.maxModelLen(engine, loop), Duration.ofSeconds(30), OptionalLong.empty());
        long maxModelLen = context.orElse(DEFAULT_CONTEXT);
        ProfilingPlan plan = ProfilingPlan.of(maxModelLen, options.maxPromptTokens(), options.maxSequences(),
            options.repeats(), options.decodeTokens(), perEngine);
        progress.println("narwhal profile: measuring " + engine.iid() + " (" + engine.url() + ", context "
            + maxModelLen + (context.isPresent() ? "" : " assumed: the engine reports no max_model_len") + "): "
            + plan.describe() + ", within " + Math.round(perEngine / 1e9) + " s");
        progress.flush();
        Duration wait = Duration.ofNanos(perEngine).plus(legBound(config)).plus(SLACK);
        EngineMeasurement m = await(profiler.measure(engine, plan), wait,
            failed(engine, "the measurement did not finish within " + wait.toSeconds() + " s"));
        progress.println("narwhal profile: " + engine.iid() + (m.passed() ? " measured" : " FAILED") + " in "
            + String.format(java.util.Locale.ROOT, "%.1f s", m.elapsedNanos() / 1e9));
        results.add(new Result(engine, m, plan.describe(), null, options.maxSequences(),
            Math.round(perEngine / 1e9)));
      }
      return results;
    } finally {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }

  /**
   * Legs are bounded as when serving, but a decode leg's first token follows a prefill of its own
   * prompt (there is no handoff), so it gets the prefill's bound; a gap between tokens gets {@code
   * engine.decode_read_timeout_s}, or a minute when that is off.
   */
  static EngineProfiler.Settings settings(FleetConfig config) {
    ExchangeOptions exchange = new ExchangeOptions(seconds(config.engine().connectTimeoutS()),
        (int) Math.min(Integer.MAX_VALUE, config.serving().maxResponseBytes()));
    long prefill = seconds(config.serving().prefillTimeoutS()).toNanos();
    long firstToken = Math.max(prefill, seconds(config.engine().firstTokenTimeoutS()).toNanos());
    double read = config.engine().decodeReadTimeoutS();
    long readNanos = read > 0 ? seconds(read).toNanos() : TimeUnit.MINUTES.toNanos(1);
    return new EngineProfiler.Settings(config.model(), new LegLimits(prefill, 0, exchange),
        new LegLimits(firstToken, readNanos, exchange), config.profiles().maxDecodeFitMape(),
        config.profiles().maxDecodeCvMape());
  }

  private static Duration legBound(FleetConfig config) {
    return seconds(config.serving().prefillTimeoutS()).multipliedBy(2);
  }

  private static EngineMeasurement failed(EngineSpec engine, String problem) {
    return new EngineMeasurement(engine.iid(), null, null, null, List.of(problem), List.of(), 0);
  }

  private static <T> T await(CompletableFuture<T> future, Duration wait, T otherwise) {
    try {
      return future.get(wait.toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return otherwise;
    } catch (TimeoutException | ExecutionException e) {
      return otherwise;
    }
  }

  private static Duration seconds(double s) {
    return Duration.ofNanos(Math.min(Math.round(s * 1e9), Long.MAX_VALUE / 4));
  }
}
