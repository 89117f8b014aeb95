package narwhal.bench.cpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class CpuListTest {

  @Test
  void parse_readsSinglesAndRanges_sortedOnce() {
    assertThat(CpuList.parse("0-1")).containsExactly(0, 1);
    assertThat(CpuList.parse(" 6,0-2,4, 2 ")).containsExactly(0, 1, 2, 4, 6);
    assertThat(CpuList.parse("3\n")).containsExactly(3);
  }

  @Test
  void parse_rejectsGarbage() {
    for (String bad : List.of("", "a", "3-1", "-1", "1-", ",")) {
      assertThatThrownBy(() -> CpuList.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void format_usesRangesForRuns() {
    assertThat(CpuList.format(List.of(0))).isEqualTo("0");
    assertThat(CpuList.format(List.of(3, 0, 1, 2, 5, 7, 8))).isEqualTo("0-3,5,7-8");
    assertThat(CpuList.format(List.of(1, 1, 0))).isEqualTo("0-1");
    assertThat(CpuList.parse(CpuList.format(List.of(0, 2, 3, 9)))).containsExactly(0, 2, 3, 9);
  }
}
