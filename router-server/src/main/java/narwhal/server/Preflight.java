package narwhal.server;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import narwhal.config.EngineSpec;
import narwhal.config.FleetConfig;
import narwhal.core.checks.CheckResult;
import narwhal.core.checks.EngineChecks;
import narwhal.core.checks.EngineFacts;
import narwhal.core.checks.ProfileGate;
import narwhal.core.profile.EngineGeneration;
import narwhal.core.profile.GenerationSource;
import narwhal.core.profile.ProfilesDocument;
import narwhal.core.profile.ProfilesFile;
import narwhal.core.profile.ProfilesFileException;
import java.nio.file.Path;
import narwhal.time.Scheduler;
import narwhal.netty.EventLoopScheduler;
import narwhal.engine.http.EngineTls;
import narwhal.engine.http.NettyEngineTransport;
import narwhal.core.legs.AuthorizingTransport;
import narwhal.time.Durations;
import narwhal.spi.EngineDialects;
import org.jspecify.annotations.Nullable;

/**
 * Preflight: every engine is reached, serves the model, matches the pinned contract and generates;
 * then every role-permitted KV transfer (each prefill-capable engine to each decode-capable
 * engine, an engine never to itself) is probed; then, when the router prices with profiles
 * (predictive admission, or a role controller that can move engines), every engine must have a
 * fresh profile whose decode fit meets the limits (the {@code profile} gate). {@code narwhal check} prints it; {@code narwhal
 * serve} runs it before serving.
 *
 * <p>Blocks the calling thread (a command's main thread, never an event loop) until every check
 * has finished; each check is bounded by the fleet's own timeouts.
 */
public final class Preflight {

  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(Preflight.class);

  /** What {@code narwhal serve} does with a failing preflight ({@code --preflight=...}). */
  public enum Mode {
    /** Refuse to serve (the default). */
    ENFORCE,
    /** Print the failures and serve anyway. */
    WARN,
    /** Skip preflight. */
    OFF;

    static Mode parse(String text) {
      try {
        return valueOf(text.toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("--preflight must be enforce, warn or off, got '" + text + "'");
      }
    }
  }

  /** Head-room beyond the checks' own timers before a wait is declared stuck (a bug, not an engine fault). */
  private static final long SLACK_NANOS = TimeUnit.SECONDS.toNanos(10);

  private Preflight() {}

  /** Runs preflight on an event loop group of its own, shut down before returning. */
  public static PreflightReport run(FleetConfig config) {
    EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    try {
      return run(config, group);
    } finally {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }

  /** Runs preflight with engine connections on {@code group} (not shut down here). */
  public static PreflightReport run(FleetConfig config, EventLoopGroup group) {
    EngineTlsWarning.log(config, log);
    try (NettyEngineTransport transport = new NettyEngineTransport(group, EngineTls.of(config.engine().tls()))) {
      EngineChecks checks = new EngineChecks(config,
          AuthorizingTransport.wrap(transport, config.engine().engineApiKey()), EngineDialects.discover());
      Scheduler loop = EventLoopScheduler.of((EventLoop) group.next());
      Map<String, CompletableFuture<CheckResult>> engineChecks = new LinkedHashMap<>();
      for (EngineSpec engine : config.engines()) {
        engineChecks.put(engine.iid(), checks.engine(engine, loop));
      }
      long engineWait = engineBoundNanos(config) + SLACK_NANOS;
      Map<String, CheckResult> engineResults = new LinkedHashMap<>();
      engineChecks.forEach((iid, future) ->
          engineResults.put(iid, await(future, engineWait, EngineChecks.ENGINE, iid, iid)));

      List<PendingPair> pairs = new ArrayList<>();
      for (EngineSpec producer : config.engines()) {
        for (EngineSpec consumer : config.engines()) {
          if (!producer.canPrefill() || !consumer.canDecode() || producer.iid().equals(consumer.iid())) {
            continue;
          }
          String subject = EngineChecks.pair(producer, consumer);
          String skip = skipReason(engineResults.get(producer.iid()), engineResults.get(consumer.iid()));
          pairs.add(new PendingPair(subject, skip == null ? checks.kvTransfer(producer, consumer, loop) : null, skip));
        }
      }
      long pairWait = transferBoundNanos(config) + SLACK_NANOS;
      List<PreflightReport.Pair> transfers = new ArrayList<>();
      for (PendingPair p : pairs) {
        CheckResult result = p.future == null ? null : await(p.future, pairWait, EngineChecks.KV_TRANSFER, p.subject, null);
        transfers.add(new PreflightReport.Pair(p.subject, result, p.skip));
      }
      ProfileGate.Report profiles = profileGate(config,
          new EngineFacts(config, AuthorizingTransport.wrap(transport, config.engine().engineApiKey()),
              EngineDialects.discover()), loop);
      List<CheckResult> cache = CacheChecks.run(config,
          new EngineFacts(config, AuthorizingTransport.wrap(transport, config.engine().engineApiKey()),
              EngineDialects.discover()), loop);
      return new PreflightReport(List.copyOf(engineResults.values()), transfers, profiles, cache);
    }
  }

  /**
   * The profile gate: the profiles file (read here, on the calling thread) and each engine's current
   * generation, judged by {@link ProfileGate}. Skipped, without reading anything, when nothing
   * prices with profiles.
   */
  static ProfileGate.Report profileGate(FleetConfig config, GenerationSource generations, Scheduler loop) {
    if (ProfileGate.use(config) == null) {
      return ProfileGate.judge(config, null, List.of(), Map.of());
    }
    Map<String, String> unmeasurable = unmeasurable(config, EngineDialects.discover());
    if (unmeasurable.size() == config.engines().size()) {
      return ProfileGate.judge(config, null, List.of(), Map.of(), unmeasurable);
    }
    ProfilesDocument doc = null;
    List<String> problems = List.of();
    try {
      doc = ProfilesFile.readIfExists(Path.of(config.profiles().path()));
    } catch (ProfilesFileException e) {
      problems = e.errors();
    }
    Map<String, EngineGeneration> current = new LinkedHashMap<>();
    if (doc != null) {
      Map<String, CompletableFuture<EngineGeneration>> reads = new LinkedHashMap<>();
      config.engines().forEach(e -> reads.put(e.iid(), generations.current(e, loop)));
      long wait = seconds(config.engine().healthTimeoutS()) + SLACK_NANOS;
      reads.forEach((iid, read) -> {
        try {
          current.put(iid, read.get(wait, TimeUnit.NANOSECONDS));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
          current.put(iid, EngineGeneration.unknown("the generation read did not finish: " + e));
        }
      });
    }
    return ProfileGate.judge(config, doc, problems, current, unmeasurable);
  }

  /**
   * The engines {@code narwhal profile} cannot measure, each with why: those whose dialect hands
   * KV over concurrently (SGLang), whose prefill leg answers only once a decode engine has joined
   * its rendezvous, so its prefill time cannot be told from the pair's.
   */
  static Map<String, String> unmeasurable(FleetConfig config, EngineDialects dialects) {
    Map<String, String> out = new LinkedHashMap<>();
    for (EngineSpec e : config.engines()) {
      if (dialects.names().contains(e.dialect())
          && dialects.get(e.dialect()).handoffStyle() == narwhal.spi.HandoffStyle.CONCURRENT) {
        out.put(e.iid(), e.dialect() + " hands KV over concurrently, which narwhal profile cannot time one engine "
            + "at a time");
      }
    }
    return out;
  }

  /**
   * {@code narwhal serve}'s gate: runs preflight unless {@code mode} is off, prints the report to
   * {@code out} (the command's stderr), and says whether serving may go ahead.
   */
  static boolean gate(FleetConfig config, Mode mode, PrintStream out, String command) {
    return gate(config, mode, out, command, failed -> { });
  }

  /**
   * As {@link #gate(FleetConfig, Mode, PrintStream, String)}; under {@code warn}, hands {@code
   * serveAnyway} the iids of the engines whose own checks failed, to keep out of placement.
   */
  static boolean gate(FleetConfig config, Mode mode, PrintStream out, String command,
      java.util.function.Consumer<java.util.Set<String>> serveAnyway) {
    if (mode == Mode.OFF) {
      out.println(command + ": preflight skipped (--preflight=off)");
      return true;
    }
    PreflightReport report = run(config);
    report.print(out);
    if (report.passed()) {
      return true;
    }
    if (mode == Mode.WARN) {
      java.util.Set<String> failed = report.failedEngines();
      out.println(command + ": serving despite the failed preflight (--preflight=warn)"
          + (failed.isEmpty() ? "" : "; held out of placement until a readmission probe passes: "
              + String.join(", ", failed)));
      serveAnyway.accept(failed);
      return true;
    }
    out.println(command + ": refusing to serve a fleet that fails preflight; fix the lines marked FAIL "
        + "(narwhal check --fleet FILE re-runs the checks), or pass --preflight=warn to serve anyway");
    out.flush();
    return false;
  }

  private record PendingPair(
      String subject, @Nullable CompletableFuture<CheckResult> future, @Nullable String skip) {}

  private static @Nullable String skipReason(CheckResult producer, CheckResult consumer) {
    if (!producer.passed() && !consumer.passed()) {
      return producer.subject() + " and " + consumer.subject() + " failed their engine checks";
    }
    if (!producer.passed()) {
      return producer.subject() + " failed its engine checks";
    }
    if (!consumer.passed()) {
      return consumer.subject() + " failed its engine checks";
    }
    return null;
  }

  /**
   * The longest a KV-transfer probe can take by the legs' own timers: the prefill leg ({@code
   * serving.prefill_timeout_s}), the decode leg's first token and its retries ({@code
   * engine.first_token_timeout_s}, three times), and a connection's health-bounded setup.
   */
  static long transferBoundNanos(FleetConfig config) {
    return seconds(config.serving().prefillTimeoutS()) + 3 * seconds(config.engine().firstTokenTimeoutS())
        + seconds(config.engine().healthTimeoutS());
  }

  /** An engine's checks: three GETs (health, model, contract) and a generation probe, legs as a transfer's. */
  static long engineBoundNanos(FleetConfig config) {
    return 3 * seconds(config.engine().healthTimeoutS()) + transferBoundNanos(config);
  }

  /**
   * Waits for one check. A check still running after {@code waitNanos}, or one that broke, is
   * reported as a FAIL line like any other: the command exits 1 with its report, never a stack
   * trace.
   *
   * @param failedIid the engine the failure is blamed on, or null for a transfer pair
   */
  static CheckResult await(CompletableFuture<CheckResult> future, long waitNanos, String check, String subject,
      @Nullable String failedIid) {
    try {
      return future.get(waitNanos, TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return stuck(check, subject, failedIid, waitNanos, "preflight was interrupted before this check finished");
    } catch (TimeoutException e) {
      future.cancel(false);
      return stuck(check, subject, failedIid, waitNanos, "check did not finish within "
          + Durations.describe(waitNanos) + ", past every timeout that bounds it (serving.prefill_timeout_s, "
          + "engine.first_token_timeout_s, engine.health_timeout_s); re-run narwhal check, and report it if it persists");
    } catch (ExecutionException | CancellationException e) {
      Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
      return stuck(check, subject, failedIid, waitNanos, "check broke: " + cause
          + "; re-run narwhal check, and report it if it persists");
    }
  }

  private static CheckResult stuck(String check, String subject, @Nullable String failedIid, long elapsedNanos,
      String detail) {
    return new CheckResult(check, subject, CheckResult.Outcome.FAILED, detail, null, failedIid, elapsedNanos);
  }

  private static long seconds(double s) {
    return Math.round(s * 1e9);
  }
}
