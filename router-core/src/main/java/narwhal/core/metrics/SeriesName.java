package narwhal.core.metrics;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A labelled series name as it is registered in the Dropwizard registry, which knows names only:
 * {@code family{label="value",...}}, spelled as in Prometheus's text format (values escaped the
 * same way) so a registry dump reads naturally and an exporter can recover the labels exactly.
 *
 * @param family the metric family, e.g. {@code narwhal_failed_total}
 * @param labelNames label names, in registration order
 * @param labelValues values, one per name
 */
public record SeriesName(String family, List<String> labelNames, List<String> labelValues) {

  public SeriesName {
    Objects.requireNonNull(family, "family");
    labelNames = List.copyOf(labelNames);
    labelValues = List.copyOf(labelValues);
    if (labelNames.size() != labelValues.size()) {
      throw new IllegalArgumentException("one value per label name");
    }
  }

  /** The registry name for {@code family} with label name/value pairs. */
  public static String of(String family, String... labelPairs) {
    if (labelPairs.length % 2 != 0) {
      throw new IllegalArgumentException("labels come in name/value pairs");
    }
    if (labelPairs.length == 0) {
      return family;
    }
    StringBuilder sb = new StringBuilder(family).append('{');
    for (int i = 0; i < labelPairs.length; i += 2) {
      if (i > 0) {
        sb.append(',');
      }
      sb.append(labelPairs[i]).append("=\"");
      escape(labelPairs[i + 1], sb);
      sb.append('"');
    }
    return sb.append('}').toString();
  }

  /** Reads a registry name written by {@link #of}; a name without labels is a bare family. */
  public static SeriesName parse(String name) {
    int brace = name.indexOf('{');
    if (brace < 0 || !name.endsWith("}")) {
      return new SeriesName(name, List.of(), List.of());
    }
    List<String> names = new ArrayList<>();
    List<String> values = new ArrayList<>();
    int i = brace + 1;
    int end = name.length() - 1;
    while (i < end) {
      int eq = name.indexOf("=\"", i);
      if (eq < 0) {
        throw new IllegalArgumentException("malformed series name: " + name);
      }
      names.add(name.substring(i, eq));
      StringBuilder value = new StringBuilder();
      int j = eq + 2;
      while (j < end && name.charAt(j) != '"') {
        char c = name.charAt(j);
        if (c == '\\' && j + 1 < end) {
          char next = name.charAt(++j);
          value.append(next == 'n' ? '\n' : next);
        } else {
          value.append(c);
        }
        j++;
      }
      values.add(value.toString());
      i = j + 1;
      if (i < end && name.charAt(i) == ',') {
        i++;
      }
    }
    return new SeriesName(name.substring(0, brace), names, values);
  }

  @Override
  public String toString() {
    String[] pairs = new String[labelNames.size() * 2];
    for (int i = 0; i < labelNames.size(); i++) {
      pairs[2 * i] = labelNames.get(i);
      pairs[2 * i + 1] = labelValues.get(i);
    }
    return of(family, pairs);
  }

  private static void escape(String value, StringBuilder out) {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      switch (c) {
        case '\\' -> out.append("\\\\");
        case '"' -> out.append("\\\"");
        case '\n' -> out.append("\\n");
        default -> out.append(c);
      }
    }
  }
}
