package narwhal.bench.adaptive;

import java.awt.Color;
import java.awt.Font;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.renderer.xy.XYStepRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * The adaptive benchmark's report: per trace, attainment at every offered rate for every
 * configuration, each configuration's goodput, the ratios the targets are about, an
 * attainment chart, and for the adaptive runs a chart of the prefill pool's size over time against
 * the trace's prompt-token arrival rate. Rewritten after each trace, so a long run shows progress.
 */
final class AdaptiveReport {

  private AdaptiveReport() {}

  static void write(Path dir, String command, Map<String, List<ArmRun>> byTrace,
      Map<String, List<TracePhase>> phases, double sloTtftS, double sloTpotS, List<String> simFlags)
      throws IOException {
    StringBuilder md = new StringBuilder();
    md.append("# Adaptive P/D benchmark\n\n`").append(command).append("`\n\n");
    md.append(String.format(Locale.ROOT, "SLO: TTFT ≤ %.3g s, TPOT ≤ %.3g s. Attainment = requests that completed "
        + "within both ÷ requests offered (refusals and failures miss). Goodput = the highest offered rate at "
        + "%.0f %% attainment (interpolated; `≥` when the sweep never missed).%n%n", sloTtftS, sloTpotS,
        100 * Goodput.TARGET));
    md.append("Engines: four `narwhal sim` processes with `").append(String.join(" ", simFlags)).append("`.\n\n");
    for (Map.Entry<String, List<ArmRun>> t : byTrace.entrySet()) {
      String trace = t.getKey();
      List<ArmRun> results = t.getValue();
      md.append("## ").append(trace).append(" trace\n\n");
      for (TracePhase p : phases.getOrDefault(trace, List.of())) {
        md.append(String.format(Locale.ROOT, "- %s: %.0f s, %.1f× rate, prompts ≈ %d, outputs ≈ %d tokens%n",
            p.name(), p.seconds(), p.rateFactor(), p.promptTokens(), p.outputTokens()));
      }
      md.append('\n');
      Map<String, List<ArmRun>> byConfig = new LinkedHashMap<>();
      for (ArmRun r : results) {
        byConfig.computeIfAbsent(r.configuration(), k -> new ArrayList<>()).add(r);
      }
      List<Double> rates = results.stream().map(ArmRun::rate).distinct().sorted().toList();
      md.append("| configuration |");
      rates.forEach(r -> md.append(String.format(Locale.ROOT, " %.1f/s |", r)));
      md.append(" goodput (req/s) |\n|---|");
      rates.forEach(r -> md.append("---:|"));
      md.append("---:|\n");
      double bestStatic = 0;
      double adaptive = Double.NaN;
      for (Map.Entry<String, List<ArmRun>> c : byConfig.entrySet()) {
        md.append("| ").append(c.getKey()).append(" |");
        for (double rate : rates) {
          md.append(c.getValue().stream().filter(r -> r.rate() == rate).findFirst()
              .map(r -> String.format(Locale.ROOT, " %.1f %% |", 100 * r.attainment())).orElse(" — |"));
        }
        double g = Goodput.of(c.getValue());
        md.append(' ').append(goodputCell(c.getValue(), g)).append(" |\n");
        if (c.getKey().equals("adaptive")) {
          adaptive = g;
        } else if (!c.getKey().contains("+")) {
          bestStatic = Math.max(bestStatic, g);
        }
      }
      if (!Double.isNaN(adaptive) && bestStatic > 0) {
        md.append(String.format(Locale.ROOT, "%nAdaptive goodput ÷ best static split's: **%.2f×**%n", adaptive / bestStatic));
      }
      int flips = 0;
      int reversals = 0;
      for (ArmRun r : byConfig.getOrDefault("adaptive", List.of())) {
        int[] fr = flips(r.roles());
        flips += fr[0];
        reversals += fr[1];
      }
      md.append(String.format(Locale.ROOT, "%nAdaptive runs: %d pool-size changes seen in /narwhal/state samples, "
          + "%d of them undoing the previous change within 10 s.%n%n", flips, reversals));
      phaseTable(md, results);
      Path attainment = dir.resolve("attainment-" + trace + ".png");
      attainmentChart(byConfig, trace, attainment);
      md.append("![attainment](").append(attainment.getFileName()).append(")\n\n");
      // The adaptive run at the highest rate that met the target (else the best-attaining one).
      byConfig.getOrDefault("adaptive", List.of()).stream()
          .max(Comparator.comparing((ArmRun r) -> r.attainment() >= Goodput.TARGET)
              .thenComparingDouble(r -> r.attainment() >= Goodput.TARGET ? r.rate() : r.attainment()))
          .ifPresent(r -> {
            Path roles = dir.resolve("roles-" + trace + ".png");
            try {
              rolesChart(r, phases.getOrDefault(trace, List.of()), roles);
            } catch (IOException e) {
              throw new java.io.UncheckedIOException(e);
            }
            md.append(String.format(Locale.ROOT, "Roles over time, adaptive at %.1f/s:%n%n![roles](%s)%n%n",
                r.rate(), roles.getFileName()));
          });
    }
    Files.writeString(dir.resolve("README.md"), md.toString());
  }

  /** {@code ≥ g} when the sweep never missed, {@code below r} when it missed at its lowest rate, else {@code g}. */
  static String goodputCell(List<ArmRun> sweep, double goodput) {
    if (goodput == 0 && !sweep.isEmpty()) {
      double lowest = sweep.stream().mapToDouble(ArmRun::rate).min().orElseThrow();
      return String.format(Locale.ROOT, "below %.1f", lowest);
    }
    return String.format(Locale.ROOT, "%s%.2f", Goodput.openEnded(sweep) ? "≥ " : "", goodput);
  }

  /** Attainment by phase for every run (refused requests in brackets): where each run lost. */
  private static void phaseTable(StringBuilder md, List<ArmRun> results) {
    List<String> names = results.stream().flatMap(r -> r.phases().stream()).map(PhaseAttainment::phase)
        .distinct().toList();
    if (names.size() < 2) {
      return;
    }
    md.append("Attainment by phase (refused in brackets):\n\n| run |");
    names.forEach(n -> md.append(' ').append(n).append(" |"));
    md.append("\n|---|");
    names.forEach(n -> md.append("---:|"));
    md.append('\n');
    for (ArmRun r : results) {
      md.append(String.format(Locale.ROOT, "| %s at %.1f/s |", r.configuration(), r.rate()));
      for (String n : names) {
        md.append(r.phases().stream().filter(p -> p.phase().equals(n)).findFirst()
            .map(p -> String.format(Locale.ROOT, " %.1f %% (%d) |", 100 * p.attainment(), p.refused()))
            .orElse(" — |"));
      }
      md.append('\n');
    }
    md.append('\n');
  }

  /** Changes of the prefill pool's size, and how many undid the previous change within 10 s. */
  static int[] flips(List<RoleSampler.Sample> samples) {
    int flips = 0;
    int reversals = 0;
    int lastDirection = 0;
    double lastAt = Double.NEGATIVE_INFINITY;
    for (int i = 1; i < samples.size(); i++) {
      int delta = samples.get(i).prefillEngines() - samples.get(i - 1).prefillEngines();
      if (delta == 0) {
        continue;
      }
      int direction = Integer.signum(delta);
      flips += Math.abs(delta);
      if (direction == -lastDirection && samples.get(i).atS() - lastAt < 10) {
        reversals++;
      }
      lastDirection = direction;
      lastAt = samples.get(i).atS();
    }
    return new int[] {flips, reversals};
  }

  private static void attainmentChart(Map<String, List<ArmRun>> byConfig, String trace, Path png) throws IOException {
    XYSeriesCollection data = new XYSeriesCollection();
    for (Map.Entry<String, List<ArmRun>> c : byConfig.entrySet()) {
      XYSeries s = new XYSeries(c.getKey());
      c.getValue().forEach(r -> s.add(r.rate(), 100 * r.attainment()));
      data.addSeries(s);
    }
    XYPlot plot = new XYPlot(data, new NumberAxis("offered rate (requests/s)"), new NumberAxis("SLO attainment (%)"),
        new XYLineAndShapeRenderer(true, true));
    JFreeChart chart = new JFreeChart("SLO attainment, " + trace + " trace", new Font("SansSerif", Font.BOLD, 15),
        plot, true);
    chart.setBackgroundPaint(Color.WHITE);
    ChartUtils.saveChartAsPNG(png.toFile(), chart, 1000, 600);
  }

  private static void rolesChart(ArmRun run, List<TracePhase> phases, Path png) throws IOException {
    XYSeries prefill = new XYSeries("engines in the prefill role");
    run.roles().forEach(s -> prefill.add(s.atS(), s.prefillEngines()));
    XYSeries load = new XYSeries("offered prompt tokens/s (thousands)");
    double at = 0;
    for (TracePhase p : phases) {
      double kTokens = run.rate() * p.rateFactor() * p.promptTokens() / 1000.0;
      load.add(at, kTokens);
      at += p.seconds();
      load.add(at, kTokens);
    }
    XYPlot plot = new XYPlot(new XYSeriesCollection(prefill), new NumberAxis("seconds into the run"),
        new NumberAxis("prefill engines (of 4)"), new XYStepRenderer());
    plot.setDataset(1, new XYSeriesCollection(load));
    plot.setRangeAxis(1, new NumberAxis("prompt tokens/s (k)"));
    plot.mapDatasetToRangeAxis(1, 1);
    plot.setRenderer(1, new XYLineAndShapeRenderer(true, false));
    JFreeChart chart = new JFreeChart(String.format(Locale.ROOT, "Roles over time, adaptive at %.1f/s", run.rate()),
        new Font("SansSerif", Font.BOLD, 15), plot, true);
    chart.setBackgroundPaint(Color.WHITE);
    ChartUtils.saveChartAsPNG(png.toFile(), chart, 1000, 500);
  }
}
