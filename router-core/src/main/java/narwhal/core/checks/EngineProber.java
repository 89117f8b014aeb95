package narwhal.core.checks;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import narwhal.config.EngineSpec;
import narwhal.core.checks.CheckResult;
import narwhal.time.Scheduler;

/**
 * The checks the breaker runs against an engine that is out of placement or suspected. Each
 * completes on {@code loop}, never exceptionally, and bounds its own legs in time. Implemented by
 * {@link narwhal.core.checks.EngineChecks}, which preflight uses too.
 */
public interface EngineProber {

  /** The engine's liveness route answers 200. */
  CompletableFuture<CheckResult> health(EngineSpec engine, Scheduler loop);

  /**
   * A real inference through the router's engine client: a tiny prompt through a prefill leg on
   * {@code producer} and a decode leg on {@code consumer} using that leg's new handoff (the same
   * engine for both means a same-engine decode). A failure names the engine blamed.
   */
  CompletableFuture<CheckResult> kvTransfer(EngineSpec producer, EngineSpec consumer, Scheduler loop);

  /**
   * Lifecycle validation against the pinned engine contract: health, the model is served, the
   * contract fields the engine reports match, a generation probe, and its role-permitted KV
   * transfer probes with {@code livePeers}.
   */
  CompletableFuture<CheckResult> lifecycle(EngineSpec engine, List<EngineSpec> livePeers, Scheduler loop);
}
