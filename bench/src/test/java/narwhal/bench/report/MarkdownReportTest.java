package narwhal.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MarkdownReportTest {

  private static ArmLevel row(String arm, double level, String style, double ttft50, double ttft99, double cpuPerTok,
      double otherCores) {
    return new ArmLevel(arm, level, style, 10, 100, 6400, 10, 640, ttft50, ttft99, 20, 25, 1, 10, cpuPerTok, 100, 120,
        arm.equals("narwhal") ? 40 : -1, arm.equals("narwhal") ? 1024 : -1, 2, 3, 0, Map.of(), "", otherCores,
        otherCores > ArmLevel.NOISY_CORES, otherCores > 0.3 ? "java 0.30" : "", 0.01, 0, 0.25,
        arm.equals("narwhal") ? 0.05 : Double.NaN);
  }

  private static ArmLevel row(String arm, double level, double ttft50, double ttft99, double cpuPerTok) {
    return row(arm, level, ArmLevel.CHUNKED, ttft50, ttft99, cpuPerTok, 0.02);
  }

  private final List<ArmLevel> rows = List.of(
      row("direct", 64, 5.0, 9.0, Double.NaN),
      row("narwhal", 64, 5.25, 10.5, 3.0),
      row("nginx", 64, 5.1, 9.5, 2.0));

  @Test
  void table_showsAddedLatencyOnEveryProxysRow() {
    String table = MarkdownReport.table(rows, "streams");
    assertThat(table.lines()).hasSize(5);
    assertThat(line(table, "| 64 | narwhal")).contains("+0.25 / +1.50");
    assertThat(line(table, "| 64 | nginx")).contains("+0.10 / +0.50");
    assertThat(line(table, "| 64 | direct")).doesNotContain("+0.");
  }

  private static String line(String table, String start) {
    return table.lines().filter(l -> l.startsWith(start)).findFirst().orElseThrow();
  }

  @Test
  void table_everyRowHasAsManyCellsAsTheHeader() {
    List<String> lines = MarkdownReport.table(rows, "streams").lines().toList();
    long header = lines.get(0).chars().filter(c -> c == '|').count();
    assertThat(lines).allSatisfy(l -> assertThat(l.chars().filter(c -> c == '|').count()).isEqualTo(header));
    assertThat(lines.get(0)).contains("other CPU (cores)");
  }

  @Test
  void addedLatency_comparesWithDirectAtTheSameLevelAndEngineStyle() {
    List<ArmLevel> both = List.of(
        row("direct", 64, ArmLevel.CHUNKED, 5.0, 9.0, Double.NaN, 0),
        row("direct", 64, ArmLevel.CLOSE, 7.0, 12.0, Double.NaN, 0),
        row("narwhal", 64, ArmLevel.CLOSE, 8.0, 15.0, 3.0, 0));
    assertThat(MarkdownReport.table(both, "streams")).contains("+1.00 / +3.00").doesNotContain("+3.00 / +6.00");
    assertThat(MarkdownReport.withStyle(both, ArmLevel.CLOSE)).hasSize(2)
        .allSatisfy(r -> assertThat(r.engineStyle()).isEqualTo("close"));
  }

  @Test
  void noisyWindows_areMarkedInTheTableAndListed() {
    List<ArmLevel> noisy = List.of(
        row("direct", 16, ArmLevel.CHUNKED, 5.0, 9.0, Double.NaN, 0.04),
        row("narwhal", 16, ArmLevel.CHUNKED, 5.0, 9.0, 3.0, 0.35),
        row("nginx", 64, ArmLevel.CLOSE, 5.0, 9.0, 2.0, 0.11));
    String table = MarkdownReport.table(noisy, "streams");
    assertThat(table).contains("| 0.04 |").contains("0.35 ⚠ noisy").contains("0.11 ⚠ noisy");
    assertThat(table.lines().filter(l -> l.contains("⚠")).count()).isEqualTo(2);
    assertThat(MarkdownReport.noisySummary(noisy, "streams"))
        .contains("2 of 3")
        .contains("16 streams narwhal (chunked): 0.35 (java 0.30)")
        .contains("64 streams nginx (close): 0.11")
        .doesNotContain("direct");
    assertThat(MarkdownReport.noisySummary(rows, "streams")).contains("none of 3");
  }

  @Test
  void cpuRatios_isRouterOverNginxPerLevel() {
    assertThat(MarkdownReport.cpuRatios(rows)).isEqualTo("64: 1.50×");
  }

  @Test
  void cpuRatios_againstNginxRelayingBothLegs_isItsOwnLine() {
    List<ArmLevel> withBoth = new java.util.ArrayList<>(rows);
    withBoth.add(row("nginx-both", 64, 5.2, 9.8, 2.4));
    assertThat(MarkdownReport.cpuRatios(withBoth)).as("the target's reference is unchanged").isEqualTo("64: 1.50×");
    assertThat(MarkdownReport.cpuRatios(withBoth, "nginx-both")).isEqualTo("64: 1.25×");
    assertThat(MarkdownReport.cpuRatios(rows, "nginx-both")).as("no such arm run").isEmpty();
    assertThat(line(MarkdownReport.table(withBoth, "streams"), "| 64 | nginx-both")).contains("+0.20 / +0.80");
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
