package narwhal.core.metrics;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.Metered;
import com.codahale.metrics.Metric;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.PrometheusNaming;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code GET /metrics}: the router's Dropwizard registry mapped onto Prometheus snapshots and
 * written by the Prometheus client library's text-format writer (format 0.0.4), so the output
 * follows the format exactly without hand-written formatting.
 *
 * <p>Mapping: a {@link Counter} (or the count of a {@link Metered}) becomes a counter, a {@link
 * Gauge} of a number or boolean a gauge, a {@link BucketedHistogram} a classic histogram with
 * its buckets; series of one family are grouped by the labels in their {@link SeriesName}. Help
 * text comes from {@link RouterMetrics#family}. Other metric kinds (Dropwizard's reservoir
 * histograms and timers) have no faithful Prometheus form here and are left out.
 */
final class PrometheusExposition {

  /** The Prometheus text format's content type. */
  static final String CONTENT_TYPE = PrometheusTextFormatWriter.CONTENT_TYPE;

  private static final Logger log = LoggerFactory.getLogger(PrometheusExposition.class);

  private final RouterMetrics metrics;
  private final PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();

  PrometheusExposition(RouterMetrics metrics) {
    this.metrics = metrics;
  }

  /** The current values in the Prometheus text format. */
  byte[] scrape() {
    ByteArrayOutputStream out = new ByteArrayOutputStream(8192);
    try {
      writer.write(out, snapshots());
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a ByteArrayOutputStream does not fail
    }
    return out.toByteArray();
  }

  MetricSnapshots snapshots() {
    Map<String, List<Series>> byFamily = new LinkedHashMap<>();
    for (Map.Entry<String, Metric> e : new TreeMap<>(metrics.registry().getMetrics()).entrySet()) {
      SeriesName name = SeriesName.parse(e.getKey());
      byFamily.computeIfAbsent(name.family(), k -> new ArrayList<>()).add(new Series(name, e.getValue()));
    }
    MetricSnapshots.Builder out = MetricSnapshots.builder();
    for (Map.Entry<String, List<Series>> family : byFamily.entrySet()) {
      try {
        MetricSnapshot snapshot = snapshot(family.getKey(), family.getValue());
        if (snapshot != null) {
          out.metricSnapshot(snapshot);
        }
      } catch (IllegalArgumentException e) {
        // One bad family (a clash of label sets, an unusable name) must not take the scrape down.
        log.warn("metric family {} left out of /metrics: {}", family.getKey(), e.getMessage());
      }
    }
    return out.build();
  }

  private MetricSnapshot snapshot(String familyName, List<Series> series) {
    Metric first = series.get(0).metric;
    MetricFamily family = metrics.family(familyName);
    String help = family != null ? family.help() : familyName;
    if (first instanceof BucketedHistogram) {
      return histogram(familyName, help, series);
    }
    if (first instanceof Counter || first instanceof Metered) {
      return counter(familyName, help, series);
    }
    if (first instanceof Gauge) {
      return gauge(familyName, help, series);
    }
    log.debug("metric {} has no Prometheus mapping ({})", familyName, first.getClass().getSimpleName());
    return null;
  }

  private static CounterSnapshot counter(String familyName, String help, List<Series> series) {
    // The writer appends _total itself; the family is registered with it.
    String base = familyName.endsWith("_total")
        ? familyName.substring(0, familyName.length() - "_total".length()) : familyName;
    CounterSnapshot.Builder b = CounterSnapshot.builder().name(sanitize(base)).help(help);
    for (Series s : series) {
      long count = s.metric instanceof Counter c ? c.getCount()
          : s.metric instanceof Metered m ? m.getCount() : -1;
      if (count >= 0) {
        b.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder().labels(s.labels()).value(count).build());
      }
    }
    return b.build();
  }

  private static GaugeSnapshot gauge(String familyName, String help, List<Series> series) {
    GaugeSnapshot.Builder b = GaugeSnapshot.builder().name(sanitize(familyName)).help(help);
    for (Series s : series) {
      if (!(s.metric instanceof Gauge<?> g)) {
        continue;
      }
      Object v = g.getValue();
      double value = v instanceof Number n ? n.doubleValue()
          : v instanceof Boolean bool ? (bool ? 1 : 0) : Double.NaN;
      if (!Double.isNaN(value)) {
        b.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder().labels(s.labels()).value(value).build());
      }
    }
    return b.build();
  }

  private static HistogramSnapshot histogram(String familyName, String help, List<Series> series) {
    HistogramSnapshot.Builder b = HistogramSnapshot.builder().name(sanitize(familyName)).help(help);
    for (Series s : series) {
      if (!(s.metric instanceof BucketedHistogram h)) {
        continue;
      }
      BucketedHistogram.Snapshot snap = h.snapshot();
      double[] bounds = new double[snap.upperBounds().length + 1];
      System.arraycopy(snap.upperBounds(), 0, bounds, 0, snap.upperBounds().length);
      bounds[bounds.length - 1] = Double.POSITIVE_INFINITY;
      b.dataPoint(HistogramSnapshot.HistogramDataPointSnapshot.builder()
          .labels(s.labels())
          .classicHistogramBuckets(ClassicHistogramBuckets.of(bounds, snap.counts()))
          .sum(snap.sum())
          .build());
    }
    return b.build();
  }

  private static String sanitize(String name) {
    return PrometheusNaming.isValidLegacyMetricName(name) ? name : PrometheusNaming.sanitizeMetricName(name);
  }

  private record Series(SeriesName name, Metric metric) {
    Labels labels() {
      return name.labelNames().isEmpty() ? Labels.EMPTY : Labels.of(name.labelNames(), name.labelValues());
    }
  }
}
