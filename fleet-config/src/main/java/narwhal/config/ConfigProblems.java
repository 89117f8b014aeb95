package narwhal.config;

import java.util.ArrayList;
import java.util.List;

/**
 * The problems found while reading one fleet file. Parsing never stops at the first problem: each
 * is recorded here with its JSON path and parsing carries on with a default, so one run reports
 * everything that needs fixing.
 */
final class ConfigProblems {

  private final List<String> errors = new ArrayList<>();

  void add(String path, String message) {
    errors.add(path + ": " + message);
  }

  boolean isEmpty() {
    return errors.isEmpty();
  }

  List<String> errors() {
    return List.copyOf(errors);
  }
}
