package narwhal.core.checks;

import narwhal.api.FailurePolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;
import java.util.function.Supplier;
import narwhal.config.EngineSpec;
import narwhal.config.FleetConfig;
import narwhal.core.checks.CheckResult.Outcome;
import narwhal.time.Scheduler;
import narwhal.core.legs.EngineClient;
import narwhal.core.legs.EngineFailure;
import narwhal.core.legs.EngineFailures;
import narwhal.spi.EngineDialects;
import narwhal.spi.EngineTransport;
import org.jspecify.annotations.Nullable;

/**
 * Non-blocking checks of one engine, or of one producer-consumer pair: what readmission runs
 * before an engine returns to placement and what preflight runs over the whole fleet.
 *
 * <p>Every method returns at once; its future completes on the {@link Scheduler} passed to it and
 * never exceptionally: a fault becomes a {@link CheckResult} with {@link Outcome#FAILED} and a
 * detail that says what to fix. Each check is bounded by a timer on that scheduler: plain requests
 * by {@code engine.health_timeout_s}, each probe leg by {@code engine.first_token_timeout_s}.
 * Probes take no reservations. Thread-safe; a check's state is confined to its scheduler.
 */
public final class EngineChecks implements narwhal.core.checks.EngineProber {

  public static final String HEALTH = "health";
  public static final String MODEL = "model";
  public static final String CONTRACT = "contract";
  public static final String GENERATION = "generation";
  public static final String KV_TRANSFER = "kv_transfer";
  /** Every single-engine check in order: health, model, contract, generation. */
  public static final String ENGINE = "engine";
  /** {@link #ENGINE} then the role-permitted KV transfers. */
  public static final String LIFECYCLE = "lifecycle";

  private final CheckSettings settings;
  private final EngineTransport transport;
  private final EngineDialects dialects;
  private final ProbeLegs probes;
  private final AttestationCheck attestation;

  /** Checks that run probe legs on a client of their own over {@code transport}. */
  public EngineChecks(FleetConfig config, EngineTransport transport, EngineDialects dialects) {
    this(config, transport, dialects, new EngineClient(transport, dialects));
  }

  /** Checks whose probe legs go through {@code client} (the router's own engine client). */
  public EngineChecks(FleetConfig config, EngineTransport transport, EngineDialects dialects, EngineClient client) {
    this.settings = CheckSettings.from(config);
    this.transport = transport;
    this.dialects = dialects;
    this.probes = new ProbeLegs(client, settings);
    this.attestation = new AttestationCheck(transport, settings);
  }

  /** The engine's liveness request (vLLM: {@code GET /health}) answers 200. */
  public CompletableFuture<CheckResult> health(EngineSpec engine, Scheduler loop) {
    return onLoop(loop, HEALTH, engine.iid(), () -> {
      long start = loop.nanoTime();
      return RawGet.fetch(transport, engine.url(), dialects.get(engine.dialect()).healthRequest(),
              settings.exchange(), settings.healthTimeoutNanos(), "engine.health_timeout_s", loop)
          .handle((reply, error) -> {
            long elapsed = loop.nanoTime() - start;
            if (error != null) {
              return CheckResult.failed(HEALTH, engine.iid(), getProblem("health check", error), elapsed);
            }
            if (FailurePolicy.refusesCredentials(reply.status())) {
              return CheckResult.failed(HEALTH, engine.iid(), EngineFailures.credentialsRefused(
                  "engine " + engine.iid() + "'s health check", reply.status()), elapsed);
            }
            if (reply.status() != 200) {
              return CheckResult.failed(HEALTH, engine.iid(),
                  "health check answered HTTP " + reply.status() + " (the engine is up but not healthy)", elapsed);
            }
            return CheckResult.passed(HEALTH, engine.iid(), "health " + millis(elapsed) + " ms", elapsed);
          });
    });
  }

  /** The engine's model list (vLLM: {@code GET /v1/models}) names the fleet's model. */
  public CompletableFuture<CheckResult> servesModel(EngineSpec engine, Scheduler loop) {
    return onLoop(loop, MODEL, engine.iid(), () -> {
      long start = loop.nanoTime();
      var dialect = dialects.get(engine.dialect());
      var request = dialect.modelsRequest();
      return RawGet.fetch(transport, engine.url(), request, settings.exchange(), settings.healthTimeoutNanos(),
              "engine.health_timeout_s", loop)
          .handle((reply, error) -> {
            long elapsed = loop.nanoTime() - start;
            String what = "model list (" + request.method() + " " + request.path() + ")";
            if (error != null) {
              return CheckResult.failed(MODEL, engine.iid(), getProblem(what, error), elapsed);
            }
            if (FailurePolicy.refusesCredentials(reply.status())) {
              return CheckResult.failed(MODEL, engine.iid(), EngineFailures.credentialsRefused(
                  "engine " + engine.iid() + "'s " + what, reply.status()), elapsed);
            }
            if (reply.status() != 200) {
              return CheckResult.failed(MODEL, engine.iid(), what + " answered HTTP " + reply.status(), elapsed);
            }
            List<String> served;
            try {
              served = dialect.readModels(reply.body());
            } catch (IllegalArgumentException e) {
              return CheckResult.failed(MODEL, engine.iid(), what + " is unreadable: " + e.getMessage(), elapsed);
            }
            if (!served.contains(settings.model())) {
              return CheckResult.failed(MODEL, engine.iid(), "engine serves " + served + ", not the fleet's model '"
                  + settings.model() + "': fix the fleet file's model or the engine's served model name", elapsed);
            }
            return CheckResult.passed(MODEL, engine.iid(), "model " + settings.model(), elapsed);
          });
    });
  }

  /**
   * Every field the fleet's {@code engine_contract} pins matches the engine's attestation
   * document, fetched from its {@code attestation_url}. Passes at once without a contract.
   */
  public CompletableFuture<CheckResult> contract(EngineSpec engine, Scheduler loop) {
    return onLoop(loop, CONTRACT, engine.iid(), () -> attestation.check(engine, loop));
  }

  /**
   * A tiny prompt through the engine: a prefill leg then a same-engine decode for role {@code
   * both}, the prefill leg alone for a prefill engine, the decode leg alone (recomputing the
   * prompt) for a decode engine.
   */
  public CompletableFuture<CheckResult> generation(EngineSpec engine, Scheduler loop) {
    if (probes.concurrent(engine)) {
      // A concurrent-handoff engine (SGLang) serves one leg of a pair; alone it cannot generate.
      // Its generation is proven by the KV transfer probe with a peer.
      return onLoop(loop, GENERATION, engine.iid(), () -> CompletableFuture.completedFuture(CheckResult.passed(
          GENERATION, engine.iid(), "generation (proven by the kv transfer probe)", 0)));
    }
    return onLoop(loop, GENERATION, engine.iid(), () -> {
      long start = loop.nanoTime();
      CompletableFuture<?> legs;
      if (engine.canPrefill()) {
        legs = probes.prefill(engine, loop).thenCompose(
            handoff -> engine.canDecode() ? probes.decode(engine, handoff, loop) : CompletableFuture.completedFuture(0));
      } else {
        legs = probes.decode(engine, null, loop);
      }
      return legs.handle((ignored, error) -> {
        long elapsed = loop.nanoTime() - start;
        if (error == null) {
          return CheckResult.passed(GENERATION, engine.iid(), "generation " + millis(elapsed) + " ms", elapsed);
        }
        return probeFailure(GENERATION, engine.iid(), "generation probe failed: ", error, elapsed);
      });
    });
  }

  /**
   * The real KV transfer: a prefill on {@code producer}, then a decode on {@code consumer} with
   * the producer's handoff. A failure names the leg and the engine blamed ({@link
   * CheckResult#failedPhase()}, {@link CheckResult#failedIid()}); {@link CheckResult#outcomeFor}
   * turns a producer failure into "inconclusive" for the consumer.
   */
  public CompletableFuture<CheckResult> kvTransfer(EngineSpec producer, EngineSpec consumer, Scheduler loop) {
    String pair = pair(producer, consumer);
    return onLoop(loop, KV_TRANSFER, pair, () -> {
      long start = loop.nanoTime();
      CompletableFuture<Integer> legs = probes.concurrent(producer)
          ? probes.transferConcurrently(producer, consumer, loop)
          : probes.prefill(producer, loop).thenCompose(handoff -> probes.decode(consumer, handoff, loop));
      return legs
          .handle((tokens, error) -> {
            long elapsed = loop.nanoTime() - start;
            if (error == null) {
              return CheckResult.passed(KV_TRANSFER, pair, "kv transfer " + millis(elapsed) + " ms", elapsed);
            }
            return probeFailure(KV_TRANSFER, pair, "kv transfer failed: ", error, elapsed);
          });
    });
  }

  /**
   * Health, model, contract and generation, stopping at the first failure. Passing, the detail
   * lists each step ({@code health 3 ms, model m, contract (no contract pinned), generation 8
   * ms}); failing, the result is the failed step's own.
   */
  public CompletableFuture<CheckResult> engine(EngineSpec engine, Scheduler loop) {
    List<Function<Scheduler, CompletableFuture<CheckResult>>> steps = List.of(
        l -> health(engine, l), l -> servesModel(engine, l), l -> contract(engine, l), l -> generation(engine, l));
    return onLoop(loop, ENGINE, engine.iid(), () -> sequence(ENGINE, engine.iid(), steps, loop, loop.nanoTime()));
  }

  /**
   * Lifecycle validation, as readmission runs it: {@link #engine} then the role-permitted KV
   * transfers with live peers: a prefill-capable engine sends a handoff to the first
   * decode-capable peer, and a decode-capable engine takes one from the first prefill-capable
   * peer. Stops at the first failure. A transfer that fails on the peer's side is {@link
   * Outcome#INCONCLUSIVE}: it says nothing against this engine. A transfer with no live peer to
   * pair with is skipped (noted in the detail).
   *
   * @param livePeers engines currently in placement; {@code engine} itself is ignored if present
   */
  public CompletableFuture<CheckResult> lifecycle(EngineSpec engine, List<EngineSpec> livePeers, Scheduler loop) {
    List<Function<Scheduler, CompletableFuture<CheckResult>>> steps = new ArrayList<>();
    steps.add(l -> this.engine(engine, l));
    List<String> skipped = new ArrayList<>();
    if (engine.canPrefill()) {
      EngineSpec consumer = firstPeer(engine, livePeers, true);
      if (consumer == null) {
        skipped.add("no live decode-capable peer to send a KV handoff to");
      } else {
        steps.add(l -> judgedFor(engine, kvTransfer(engine, consumer, l)));
      }
    }
    if (engine.canDecode()) {
      EngineSpec producer = firstPeer(engine, livePeers, false);
      if (producer == null) {
        skipped.add("no live prefill-capable peer to take a KV handoff from");
      } else {
        steps.add(l -> judgedFor(engine, kvTransfer(producer, engine, l)));
      }
    }
    return onLoop(loop, LIFECYCLE, engine.iid(), () -> sequence(LIFECYCLE, engine.iid(), steps, loop, loop.nanoTime())
        .thenApply(r -> !r.passed() || skipped.isEmpty() ? r
            : r.as(LIFECYCLE, engine.iid(), r.detail() + "; skipped: " + String.join(", ", skipped), r.elapsedNanos())));
  }

  /** {@code "p0 -> d0"}: how a transfer pair is named in results and preflight lines. */
  public static String pair(EngineSpec producer, EngineSpec consumer) {
    return producer.iid() + " -> " + consumer.iid();
  }

  private static CompletableFuture<CheckResult> judgedFor(EngineSpec engine, CompletableFuture<CheckResult> transfer) {
    // Within lifecycle, a passing transfer's detail names its pair: the engine took two directions.
    return transfer.thenApply(r -> r.passed()
        ? r.as(r.check(), r.subject(), r.subject() + " " + r.detail(), r.elapsedNanos())
        : r.withOutcome(r.outcomeFor(engine.iid())));
  }

  private static @Nullable EngineSpec firstPeer(EngineSpec engine, List<EngineSpec> peers, boolean decodeCapable) {
    for (EngineSpec peer : peers) {
      if (!peer.iid().equals(engine.iid()) && (decodeCapable ? peer.canDecode() : peer.canPrefill())) {
        return peer;
      }
    }
    return null;
  }

  /** Runs {@code steps} one after another; the first result that is not a pass ends the run. */
  private static CompletableFuture<CheckResult> sequence(String check, String subject,
      List<Function<Scheduler, CompletableFuture<CheckResult>>> steps, Scheduler loop, long start) {
    CompletableFuture<CheckResult> out = new CompletableFuture<>();
    runStep(check, subject, steps, 0, new ArrayList<>(), loop, start, out);
    return out;
  }

  private static void runStep(String check, String subject, List<Function<Scheduler, CompletableFuture<CheckResult>>> steps,
      int index, List<String> details, Scheduler loop, long start, CompletableFuture<CheckResult> out) {
    if (index == steps.size()) {
      long elapsed = loop.nanoTime() - start;
      out.complete(CheckResult.passed(check, subject, String.join(", ", details), elapsed));
      return;
    }
    steps.get(index).apply(loop).whenComplete((result, error) -> {
      if (error != null) {
        out.complete(new CheckResult(check, subject, Outcome.FAILED, check + " check failed: " + unwrap(error),
            null, null, loop.nanoTime() - start));
        return;
      }
      if (!result.passed()) {
        out.complete(result);
        return;
      }
      details.add(result.detail());
      runStep(check, subject, steps, index + 1, details, loop, start, out);
    });
  }

  private static CheckResult probeFailure(String check, String subject, String prefix, Throwable error, long elapsed) {
    Throwable cause = unwrap(error);
    if (cause instanceof EngineFailure f) {
      return new CheckResult(check, subject, Outcome.FAILED, prefix + f.getMessage(), f.phase(), f.engineIid(), elapsed);
    }
    return new CheckResult(check, subject, Outcome.FAILED, prefix + cause, null, null, elapsed);
  }

  private static String getProblem(String what, Throwable error) {
    Throwable cause = unwrap(error);
    String message = String.valueOf(cause.getMessage());
    // "unreachable: ..." reads on its own; other faults say which request they hit.
    return message.startsWith("unreachable") ? message : what + ": " + message;
  }

  static Throwable unwrap(Throwable t) {
    return t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
  }

  static long millis(long nanos) {
    return Math.round(nanos / 1e6);
  }

  /**
   * Runs {@code body} on {@code loop} and completes the returned future there, whichever thread
   * called: the caller may be a monitor task or a command's main thread. An exception from the
   * body (an unknown dialect, say) becomes a failed result rather than an exceptional future.
   */
  private static CompletableFuture<CheckResult> onLoop(Scheduler loop, String check, String subject,
      Supplier<CompletableFuture<CheckResult>> body) {
    CompletableFuture<CheckResult> out = new CompletableFuture<>();
    loop.runInLoop(() -> {
      long start = loop.nanoTime();
      CompletableFuture<CheckResult> inner;
      try {
        inner = body.get();
      } catch (RuntimeException e) {
        out.complete(new CheckResult(check, subject, Outcome.FAILED, check + " check could not run: " + e.getMessage(),
            null, null, loop.nanoTime() - start));
        return;
      }
      inner.whenComplete((result, error) -> {
        if (error != null) {
          Throwable cause = unwrap(error);
          out.complete(new CheckResult(check, subject, Outcome.FAILED, check + " check failed: " + cause,
              null, null, loop.nanoTime() - start));
        } else {
          out.complete(result);
        }
      });
    });
    return out;
  }
}
