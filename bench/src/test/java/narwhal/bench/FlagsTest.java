package narwhal.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Set;
import org.junit.jupiter.api.Test;

class FlagsTest {

  private static final Set<String> KNOWN = Set.of("close-levels", "levels", "alloc-profile", "pin");

  @Test
  void emptyList_isNoneForOptionalLists_butAnErrorForRequiredOnes() {
    Flags f = Flags.parse(new String[] {"--close-levels", "", "--levels="}, KNOWN);
    assertThat(f.getNumbersOrNone("close-levels", "1,64")).isEmpty();
    assertThatThrownBy(() -> f.getNumbers("levels", "1")).hasMessageContaining("--levels is empty");
    assertThat(Flags.parse(new String[0], KNOWN).getNumbersOrNone("close-levels", "1,64")).containsExactly(1.0, 64.0);
  }

  @Test
  void switches_areOnOrOff() {
    assertThat(Flags.parse(new String[] {"--alloc-profile", "off"}, KNOWN).getSwitch("alloc-profile", true)).isFalse();
    assertThat(Flags.parse(new String[0], KNOWN).getSwitch("alloc-profile", true)).isTrue();
    assertThatThrownBy(() -> Flags.parse(new String[] {"--alloc-profile=no"}, KNOWN).getSwitch("alloc-profile", true))
        .hasMessageContaining("on or off");
  }

  @Test
  void sweepAndProfileFlags_knowThePinningAndStyleFlags() {
    assertThat(SweepCommand.FLAGS).contains("pin", "proxy-cpu", "cpus", "close-levels", "close-warm-s");
    assertThat(SweepCommand.PROFILE_FLAGS).contains("pin", "proxy-cpu", "levels", "alloc-profile", "profiler")
        .doesNotContain("arms", "close-levels", "rates");
    assertThat(Bench.usage()).contains("--pin auto|on|off", "--close-levels", "profile", "--proxy-cpu");
  }
}
