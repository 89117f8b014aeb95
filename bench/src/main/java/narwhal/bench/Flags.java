package narwhal.bench;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/** {@code --name value} / {@code --name=value} flags, checked against the names a command knows. */
final class Flags {

  private final Map<String, String> values;

  private Flags(Map<String, String> values) {
    this.values = values;
  }

  static Flags parse(String[] args, Set<String> known) {
    Map<String, String> values = new HashMap<>();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (!a.startsWith("--")) {
        throw new IllegalArgumentException("expected a --flag, got '" + a + "'");
      }
      String name;
      String value;
      int eq = a.indexOf('=');
      if (eq > 0) {
        name = a.substring(2, eq);
        value = a.substring(eq + 1);
      } else {
        name = a.substring(2);
        if (i + 1 >= args.length) {
          throw new IllegalArgumentException("--" + name + " needs a value");
        }
        value = args[++i];
      }
      if (!known.contains(name)) {
        throw new IllegalArgumentException("unknown flag --" + name + " (known: " + String.join(", ", known) + ")");
      }
      values.put(name, value);
    }
    return new Flags(values);
  }

  String get(String name, String fallback) {
    return values.getOrDefault(name, fallback);
  }

  /** The flag's value, or null when it was not given (as opposed to given empty). */
  @Nullable String getOrNull(String name) {
    return values.get(name);
  }

  boolean has(String name) {
    return values.containsKey(name);
  }

  int getInt(String name, int fallback) {
    String v = values.get(name);
    try {
      return v == null ? fallback : Integer.parseInt(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--" + name + " must be an integer, got '" + v + "'");
    }
  }

  double getDouble(String name, double fallback) {
    String v = values.get(name);
    try {
      return v == null ? fallback : Double.parseDouble(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--" + name + " must be a number, got '" + v + "'");
    }
  }

  List<Double> getNumbers(String name, String fallback) {
    List<Double> out = new ArrayList<>();
    for (String part : get(name, fallback).split(",")) {
      if (part.isBlank()) {
        continue;
      }
      try {
        double d = Double.parseDouble(part.trim());
        if (!(d > 0)) {
          throw new NumberFormatException();
        }
        out.add(d);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("--" + name + " must be a comma-separated list of positive numbers, got '"
            + get(name, fallback) + "'");
      }
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException("--" + name + " is empty");
    }
    return out;
  }

  /** As {@link #getNumbers}, but an empty value (e.g. {@code --close-levels ""}) is no numbers. */
  List<Double> getNumbersOrNone(String name, String fallback) {
    return get(name, fallback).isBlank() ? List.of() : getNumbers(name, fallback);
  }

  /** {@code on} or {@code off}. */
  boolean getSwitch(String name, boolean fallback) {
    String v = values.get(name);
    if (v == null) {
      return fallback;
    }
    return switch (v.trim()) {
      case "on" -> true;
      case "off" -> false;
      default -> throw new IllegalArgumentException("--" + name + " must be on or off, got '" + v + "'");
    };
  }

  static List<String> words(String s) {
    List<String> out = new ArrayList<>();
    for (String w : s.trim().split("\\s+")) {
      if (!w.isEmpty()) {
        out.add(w);
      }
    }
    return out;
  }
}
