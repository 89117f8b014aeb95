package narwhal.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MarkdownReportTest {

  private static ArmLevel row(String arm, double level, double ttft50, double ttft99, double cpuPerTok) {
    return new ArmLevel(arm, level, 10, 100, 6400, 10, 640, ttft50, ttft99, 20, 25, 1, 10, cpuPerTok, 100, 120,
        arm.equals("narwhal") ? 40 : -1, arm.equals("narwhal") ? 1024 : -1, 2, 3, 0, Map.of(), "");
  }

  private final List<ArmLevel> rows = List.of(
      row("direct", 64, 5.0, 9.0, Double.NaN),
      row("narwhal", 64, 5.25, 10.5, 3.0),
      row("nginx", 64, 5.1, 9.5, 2.0));

  @Test
  void table_showsAddedLatencyOnTheNarwhalRowOnly() {
    String table = MarkdownReport.table(rows, "streams");
    assertThat(table.lines()).hasSize(5);
    assertThat(table).contains("| 64 | narwhal |").contains("+0.25 / +1.50");
    assertThat(table.lines().filter(l -> l.startsWith("| 64 | direct")).findFirst().orElseThrow())
        .doesNotContain("+0.");
  }

  @Test
  void cpuRatios_isRouterOverNginxPerLevel() {
    assertThat(MarkdownReport.cpuRatios(rows)).isEqualTo("64: 1.50×");
  }

  @Test
  void chart_isWrittenAsPng(@TempDir Path dir) throws Exception {
    Path png = dir.resolve("latency.png");
    LatencyChart.write(rows, "streams", "test", png);
    byte[] head = Files.readAllBytes(png);
    assertThat(head.length).isGreaterThan(1000);
    assertThat(new String(head, 1, 3, java.nio.charset.StandardCharsets.US_ASCII)).isEqualTo("PNG");
  }
}
