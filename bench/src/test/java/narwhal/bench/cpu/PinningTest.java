package narwhal.bench.cpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class PinningTest {

  private static final List<Integer> TWO = List.of(0, 1);
  private static final List<Integer> FOUR = List.of(0, 1, 2, 3);

  @Test
  void auto_putsTheProxyAloneOnTheHighestCpu_andEverythingElseOnTheRest() {
    Pinning p = Pinning.decide(Pinning.Mode.AUTO, OptionalInt.empty(), FOUR, true);
    assertThat(p.pinned()).isTrue();
    assertThat(p.proxyCpu()).isEqualTo(3);
    assertThat(p.others()).containsExactly(0, 1, 2);
    assertThat(p.proxyCommandPrefix()).containsExactly("taskset", "-c", "3");
    assertThat(p.othersCommandPrefix()).containsExactly("taskset", "-c", "0-2");
    assertThat(p.describe()).contains("on CPU 3 alone").contains("CPUs 0-2");
    assertThat(p.toJson()).containsEntry("mode", "pinned").containsEntry("proxy_cpus", "3")
        .containsEntry("engine_cpus", "0-2").containsEntry("load_generator_cpus", "0-2");
  }

  @Test
  void proxyCpu_choosesTheProxysCpu() {
    Pinning p = Pinning.decide(Pinning.Mode.ON, OptionalInt.of(0), TWO, true);
    assertThat(p.proxyCpu()).isZero();
    assertThat(p.others()).containsExactly(1);
    assertThatThrownBy(() -> Pinning.decide(Pinning.Mode.AUTO, OptionalInt.of(5), TWO, true))
        .hasMessageContaining("--proxy-cpu 5").hasMessageContaining("0-1");
  }

  @Test
  void off_isUnpinned_withNoPrefixes() {
    Pinning p = Pinning.decide(Pinning.Mode.OFF, OptionalInt.empty(), TWO, true);
    assertThat(p.pinned()).isFalse();
    assertThat(p.proxyCommandPrefix()).isEmpty();
    assertThat(p.othersCommandPrefix()).isEmpty();
    assertThat(p.pinToOthers(-1)).as("nothing to do, nothing run").isTrue();
    assertThat(p.toJson()).containsEntry("mode", "unpinned").containsEntry("note", "--pin off");
  }

  @Test
  void auto_fallsBackToUnpinned_onOneCpu_orWithoutTaskset_sayingWhy() {
    Pinning one = Pinning.decide(Pinning.Mode.AUTO, OptionalInt.empty(), List.of(0), true);
    assertThat(one.pinned()).isFalse();
    assertThat(one.note()).contains("only 1 CPU").contains("ran unpinned");
    Pinning noTaskset = Pinning.decide(Pinning.Mode.AUTO, OptionalInt.empty(), TWO, false);
    assertThat(noTaskset.pinned()).isFalse();
    assertThat(noTaskset.note()).contains("taskset");
    assertThat(noTaskset.describe()).startsWith("unpinned").contains("0-1");
  }

  @Test
  void on_failsWhenItCannotPin() {
    assertThatThrownBy(() -> Pinning.decide(Pinning.Mode.ON, OptionalInt.empty(), List.of(0), true))
        .hasMessageStartingWith("--pin on: only 1 CPU");
    assertThatThrownBy(() -> Pinning.decide(Pinning.Mode.ON, OptionalInt.empty(), TWO, false))
        .hasMessageContaining("taskset");
  }

  @Test
  void mode_parses() {
    assertThat(Pinning.Mode.parse(" ON ")).isEqualTo(Pinning.Mode.ON);
    assertThat(Pinning.Mode.parse("off")).isEqualTo(Pinning.Mode.OFF);
    assertThatThrownBy(() -> Pinning.Mode.parse("yes")).hasMessageContaining("auto, on or off");
  }

  @Test
  void detect_withGivenCpus_usesThemNotThisProcesssOwn() {
    Pinning p = Pinning.detect(Pinning.Mode.OFF, OptionalInt.empty(), "0-5");
    assertThat(p.allowed()).containsExactly(0, 1, 2, 3, 4, 5);
    assertThat(Pinning.allowedCpus()).isNotEmpty();
  }
}
