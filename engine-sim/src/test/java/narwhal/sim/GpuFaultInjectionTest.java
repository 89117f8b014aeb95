package narwhal.sim;

import static narwhal.sim.SimHttp.await;
import static org.assertj.core.api.Assertions.assertThat;

import narwhal.sim.gpu.GpuProfile;
import org.junit.jupiter.api.AfterEach;

/**
 * Every test of {@link FaultInjectionTest} again, with the engine in gpu timing mode: the step
 * loop paces the tokens (about 1 ms of prefill, then a 2 ms decode step), and each fault must act
 * as it does in the simple mode. After each test the engine's KV is free again: whatever way a
 * response ended, its sequence left the step loop (a prefill's lease aside).
 */
class GpuFaultInjectionTest extends FaultInjectionTest {

  @Override
  SimOptions options() {
    return SimOptions.builder()
        .gpu(GpuProfile.builder()
            .prefillBaseMillis(1)
            .prefillMillisPerToken(0)
            .prefillMillisPerTokenSquared(0)
            .decodeBaseMillis(2)
            .decodeMillisPerResidentToken(0)
            .decodeMillisPerSequence(0)
            .kvCapacityTokens(SimOptions.DEFAULT_MAX_MODEL_LEN)
            .build())
        .build();
  }

  @AfterEach
  void everySequenceLeftTheStepLoop() {
    await("the step loop to empty", () -> engine.gpuLoad().running() == 0 && engine.gpuLoad().waiting() == 0);
    // A prefill leg that returned a descriptor keeps its KV leased for a decode (none pulls it here).
    assertThat(engine.gpuLoad().kvUsedTokens()).isEqualTo(engine.gpuLoad().leasedKvTokens());
  }
}
