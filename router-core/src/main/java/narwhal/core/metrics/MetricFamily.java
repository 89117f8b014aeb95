package narwhal.core.metrics;

/**
 * What an exporter needs to know about a family beyond its series: its type and help text.
 *
 * @param name the family name; counters end in {@code _total}
 */
public record MetricFamily(String name, Type type, String help) {

  public enum Type { COUNTER, GAUGE, HISTOGRAM }
}
