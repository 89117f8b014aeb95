package narwhal.bench;

import java.util.ArrayList;
import java.util.List;

/** The harness's flag values picocli has no type for: number lists, on/off switches, JVM option words. */
final class FlagValues {

  private FlagValues() {}

  /** {@code 1,16,64}: positive numbers; an empty list is an error. */
  static List<Double> positiveNumbers(String flag, String value) {
    List<Double> out = new ArrayList<>();
    for (String part : value.split(",")) {
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
        throw new IllegalArgumentException(
            flag + " must be a comma-separated list of positive numbers, got '" + value + "'");
      }
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException(flag + " is empty");
    }
    return out;
  }

  /** As {@link #positiveNumbers}, but an empty value (e.g. {@code --close-levels ""}) is no numbers. */
  static List<Double> positiveNumbersOrNone(String flag, String value) {
    return value.isBlank() ? List.of() : positiveNumbers(flag, value);
  }

  /** {@code on} or {@code off}. */
  static boolean onOff(String flag, String value) {
    return switch (value.trim()) {
      case "on" -> true;
      case "off" -> false;
      default -> throw new IllegalArgumentException(flag + " must be on or off, got '" + value + "'");
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
