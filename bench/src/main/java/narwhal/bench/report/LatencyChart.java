package narwhal.bench.report;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogarithmicAxis;
import org.jfree.chart.axis.SymbolAxis;
import org.jfree.chart.plot.CombinedDomainXYPlot;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * The chart: TTFT and inter-token latency (p50 solid, p99 dashed) against the level, one colour
 * per arm, latency on a logarithmic axis, as a PNG. A percentile under 0.01 ms (tokens that arrived
 * together in one read) is drawn at 0.01 ms.
 */
public final class LatencyChart {

  private static final Map<String, Color> COLOURS = Map.of(
      "direct", new Color(0x4d, 0x4d, 0x4d),
      "narwhal", new Color(0x1f, 0x77, 0xb4),
      "nginx", new Color(0x2c, 0xa0, 0x2c),
      "nginx-both", new Color(0xff, 0x7f, 0x0e));
  private static final List<String> ARMS = List.of("direct", "narwhal", "nginx", "nginx-both");
  private static final double FLOOR_MS = 0.01;

  private LatencyChart() {}

  public static void write(List<ArmLevel> rows, String levelName, String title, Path png) throws IOException {
    // Levels are evenly spaced (1, 16, 64, ... are roughly geometric anyway) and labelled as run.
    List<Double> levels = rows.stream().map(ArmLevel::level).distinct().sorted().toList();
    SymbolAxis x = new SymbolAxis(levelName, levels.stream().map(MarkdownReport::level).toArray(String[]::new));
    x.setGridBandsVisible(false);
    CombinedDomainXYPlot plot = new CombinedDomainXYPlot(x);
    plot.setGap(12);
    plot.add(subplot(rows, levels, true), 1);
    plot.add(subplot(rows, levels, false), 1);
    JFreeChart chart = new JFreeChart(title, new Font("SansSerif", Font.BOLD, 15), plot, true);
    chart.setBackgroundPaint(Color.WHITE);
    ChartUtils.saveChartAsPNG(png.toFile(), chart, 1100, 900);
  }

  private static XYPlot subplot(List<ArmLevel> rows, List<Double> levels, boolean ttft) {
    XYSeriesCollection data = new XYSeriesCollection();
    XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
    int series = 0;
    for (String arm : ARMS) {
      for (boolean p99 : new boolean[] {false, true}) {
        XYSeries s = new XYSeries(arm + (ttft ? " TTFT " : " ITL ") + (p99 ? "p99" : "p50"));
        for (ArmLevel r : rows) {
          if (!r.arm().equals(arm)) {
            continue;
          }
          double v = ttft ? (p99 ? r.ttftP99Ms() : r.ttftP50Ms()) : (p99 ? r.itlP99Ms() : r.itlP50Ms());
          if (!Double.isNaN(v)) {
            // Below the floor means tokens arrived in one read (a burst): plot at the floor.
            s.add(levels.indexOf(r.level()), Math.max(FLOOR_MS, v));
          }
        }
        if (s.getItemCount() == 0) {
          continue;
        }
        data.addSeries(s);
        renderer.setSeriesPaint(series, COLOURS.getOrDefault(arm, Color.BLACK));
        renderer.setSeriesStroke(series, p99
            ? new BasicStroke(1.8f, BasicStroke.CAP_ROUND, BasicStroke.JOIN_ROUND, 1f, new float[] {6f, 4f}, 0f)
            : new BasicStroke(2.2f));
        series++;
      }
    }
    LogarithmicAxis y = new LogarithmicAxis(ttft ? "TTFT, ms (log)" : "inter-token latency, ms (log)");
    y.setStrictValuesFlag(false);
    y.setExpTickLabelsFlag(false);
    y.setLog10TickLabelsFlag(false);
    y.setAutoRangeNextLogFlag(true);
    XYPlot plot = new XYPlot(data, null, y, renderer);
    plot.setBackgroundPaint(Color.WHITE);
    plot.setDomainGridlinePaint(new Color(0xdd, 0xdd, 0xdd));
    plot.setRangeGridlinePaint(new Color(0xdd, 0xdd, 0xdd));
    return plot;
  }
}
