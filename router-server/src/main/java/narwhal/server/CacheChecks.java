package narwhal.server;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import narwhal.config.CacheEngineConfig;
import narwhal.config.EngineSpec;
import narwhal.config.FleetConfig;
import narwhal.core.checks.CheckResult;
import narwhal.core.checks.EngineFacts;
import narwhal.kvindex.EventsProbe;
import narwhal.time.Scheduler;

/**
 * Preflight's cache step ({@code cache.mode: events}): per engine that publishes KV events, its
 * replay endpoint answers (vLLM's replay protocol; without one the publisher cannot be probed, and
 * the line says so), and the block size its attestation reports equals {@code cache.block_size}
 * (the router hashes prompts in blocks of that size: another size would never match). One line per
 * engine: {@code ok p0 kv events: replay answered, block size 16}. Blocks the calling thread.
 */
final class CacheChecks {

  static final String CHECK = "kv_events";

  private CacheChecks() {}

  static List<CheckResult> run(FleetConfig config, EngineFacts facts, Scheduler loop) {
    List<CheckResult> out = new ArrayList<>();
    if (config.cache().mode() != narwhal.config.CacheMode.EVENTS) {
      return out;
    }
    Duration timeout = Duration.ofMillis(Math.max(1000, Math.round(config.cache().replayTimeoutS() * 4000)));
    for (EngineSpec engine : config.engines()) {
      CacheEngineConfig c = config.cache().engine(engine.iid());
      if (c == null || !c.events()) {
        continue;
      }
      long started = System.nanoTime();
      String subject = engine.iid();
      String blockSize = attestedBlockSize(facts, engine, loop, config);
      if (blockSize != null && !blockSize.equals(Integer.toString(config.cache().blockSize()))) {
        out.add(new CheckResult(CHECK, subject, CheckResult.Outcome.FAILED, "kv events: the engine attests block_size "
            + blockSize + " but cache.block_size is " + config.cache().blockSize()
            + ": set cache.block_size to the engine's --block-size", null, subject, System.nanoTime() - started));
        continue;
      }
      String size = blockSize == null ? "block size not attested" : "block size " + blockSize;
      if (c.replayEndpoint() == null) {
        out.add(new CheckResult(CHECK, subject, CheckResult.Outcome.INCONCLUSIVE, "kv events: " + c.endpoint()
            + " not probed (no replay_endpoint: a PUB socket answers nothing), " + size, null, null,
            System.nanoTime() - started));
        continue;
      }
      String problem = EventsProbe.ping(c.replayEndpoint(), timeout);
      out.add(problem == null
          ? new CheckResult(CHECK, subject, CheckResult.Outcome.PASSED, "kv events: replay " + c.replayEndpoint()
              + " answered, " + size, null, null, System.nanoTime() - started)
          : new CheckResult(CHECK, subject, CheckResult.Outcome.FAILED, "kv events: " + problem, null, subject,
              System.nanoTime() - started));
    }
    return out;
  }

  private static String attestedBlockSize(EngineFacts facts, EngineSpec engine, Scheduler loop, FleetConfig config) {
    try {
      return facts.attested(engine, "block_size", loop)
          .get(Math.round(config.engine().healthTimeoutS() * 1000) + 5000, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    } catch (ExecutionException | TimeoutException e) {
      return null;
    }
  }
}
