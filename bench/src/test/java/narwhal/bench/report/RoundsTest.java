package narwhal.bench.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class RoundsTest {

  private static ArmLevel window(double seconds, long completed, long tokens, double proxyCpu, double other,
      String top, double peakRss) {
    return new ArmLevel("narwhal", 64, ArmLevel.CHUNKED, seconds, completed, tokens, completed / seconds,
        tokens / seconds, 1, 2, 3, 4, proxyCpu, proxyCpu * 1000 / completed, proxyCpu * 100_000 / tokens, peakRss - 10,
        peakRss, 50, 128, 2, 1, completed == 100 ? 1 : 0, completed == 100 ? Map.of("timeout", 1L) : Map.of(),
        completed == 100 ? "timeout: stream 7" : "", other, other > ArmLevel.NOISY_CORES, top, 0.1, 0,
        proxyCpu / 2, proxyCpu / 10);
  }

  @Test
  void pooledCpuPerTokenWeighsEachWindowByItsWork() {
    // 100 and 33.3 CPU-s per 100k tokens: averaging the two figures would say 66.7; pooling the
    // CPU and the tokens says 40, the cost of the work actually done.
    ArmLevel light = window(10, 100, 1_000, 1.0, 0.02, "kdamond.0 0.02", 180);
    ArmLevel heavy = window(10, 300, 9_000, 3.0, 0.30, "java 0.25", 190);
    Histogram ttft = new Histogram(3);
    ttft.recordValue(5_000);
    ttft.recordValue(7_000);
    Histogram itl = new Histogram(3);
    itl.recordValue(20_000);

    ArmLevel pooled = Rounds.pool(List.of(light, heavy), ttft, itl);

    assertThat(pooled.proxyCpuPer100kTokens()).isCloseTo(4.0 * 100_000 / 10_000, within(1e-9));
    assertThat(pooled.proxyCpuPer1kRequests()).isCloseTo(4.0 * 1000 / 400, within(1e-9));
    assertThat(pooled.requestsPerSecond()).isCloseTo(20, within(1e-9));
    assertThat(pooled.windowSeconds()).isEqualTo(20);
    assertThat(pooled.ttftP99Ms()).isCloseTo(7.0, within(0.01));
    assertThat(pooled.itlP50Ms()).isCloseTo(20.0, within(0.02));
    assertThat(pooled.proxyPeakRssMb()).isEqualTo(190);
    assertThat(pooled.otherCpuCores()).isCloseTo(0.16, within(1e-9));
    assertThat(pooled.noisy()).as("one noisy round makes the row noisy").isTrue();
    assertThat(pooled.otherTopProcesses()).isEqualTo("noisiest round 0.30: java 0.25");
    assertThat(pooled.proxyUserCpuSeconds()).isCloseTo(2.0, within(1e-9));
    assertThat(pooled.jitCpuSeconds()).isCloseTo(0.4, within(1e-9));
    assertThat(pooled.errors()).isEqualTo(1);
    assertThat(pooled.errorKinds()).containsEntry("timeout", 1L);
    assertThat(pooled.firstError()).isEqualTo("timeout: stream 7");
  }

  @Test
  void oneRoundIsItsOwnRow() {
    ArmLevel only = window(10, 100, 1_000, 1.0, 0.02, "", 180);
    assertThat(Rounds.pool(List.of(only), new Histogram(3), new Histogram(3))).isSameAs(only);
  }

  @Test
  void cpuBreakdownGivesUserModeAndJitSharesOfEachProxysCpu() {
    // window(): proxy CPU 1 s, of which user 0.5 s and JIT 0.1 s.
    assertThat(MarkdownReport.cpuBreakdown(List.of(window(10, 100, 1_000, 1, 0, "", 1))))
        .isEqualTo("64: narwhal user 50%, JIT 10%");
  }

  @Test
  void harnessCpuPerRequestIsEnginesAndGeneratorOverCompletedRequests() {
    // window(): engines 2 s and generator 1 s, over 100 requests = 30 ms; over 300 = 10 ms
    assertThat(MarkdownReport.harnessCpuPerRequest(List.of(window(10, 100, 1_000, 1, 0, "", 1),
        window(10, 300, 9_000, 1, 0, "", 1)))).isEqualTo("64: narwhal 30.00, narwhal 10.00");
  }
}
