package narwhal.core.profile;

import java.util.concurrent.CompletableFuture;
import narwhal.config.EngineSpec;
import narwhal.time.Scheduler;

/**
 * Reads an engine's current process generation. Implemented over the engine's attestation
 * document by {@link narwhal.core.checks.EngineFacts}; faked in tests.
 */
public interface GenerationSource {

  /**
   * The generation {@code engine} runs now. Completes on {@code loop}, never exceptionally: a
   * fault becomes {@link EngineGeneration#unknown} with the reason, bounded in time by the source.
   */
  CompletableFuture<EngineGeneration> current(EngineSpec engine, Scheduler loop);
}
