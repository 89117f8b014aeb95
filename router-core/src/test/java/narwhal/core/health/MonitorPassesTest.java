package narwhal.core.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class MonitorPassesTest {

  private final List<String> events = new ArrayList<>();
  private final MonitorPasses passes = new MonitorPasses(2, (event, fields) -> events.add(event + " " + fields));

  @Test
  void onlyFailuresInARowCount() {
    passes.failed("health", new IllegalStateException());
    passes.passed("health");
    passes.failed("health", new IllegalStateException());

    assertThat(passes.degradedReason()).isNull();
    assertThat(events).isEmpty();
  }

  @Test
  void eachStageCountsItsOwnPasses_andTheRouterRecoversWhenEveryFailingStageHasPassed() {
    passes.failed("controller", new ArithmeticException());
    passes.failed("health", new IllegalStateException());
    passes.passed("health"); // a clean breaker tick does not excuse the controller
    passes.failed("controller", new ArithmeticException());
    assertThat(passes.degradedReason()).isEqualTo("monitoring degraded: controller ArithmeticException");

    passes.failed("health", new IllegalStateException());
    passes.failed("health", new IllegalStateException());
    passes.passed("controller");
    assertThat(passes.degradedReason()).as("health still failing").isEqualTo(
        "monitoring degraded: health IllegalStateException");

    passes.passed("health");
    assertThat(passes.degradedReason()).isNull();
    assertThat(events).containsExactly(
        "monitoring_degraded {stage=controller, fault=ArithmeticException, failed_passes=2}",
        "monitoring_recovered {stage=health}");
  }
}
