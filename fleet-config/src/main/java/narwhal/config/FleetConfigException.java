package narwhal.config;

import java.util.List;

/**
 * A fleet file that cannot be used. It carries every problem found in one pass, each prefixed with
 * the JSON path it concerns, e.g. {@code $.serving.max_attempts: must be an integer >= 1, got
 * "two"}.
 */
public final class FleetConfigException extends Exception {

  private static final long serialVersionUID = 1L;

  private final List<String> errors;

  public FleetConfigException(List<String> errors) {
    this("invalid fleet configuration", errors);
  }

  /**
   * @param summary what was being read, e.g. the file name; the message is this summary followed by
   *     one error per line
   */
  public FleetConfigException(String summary, List<String> errors) {
    super(message(summary, errors));
    if (errors.isEmpty()) {
      throw new IllegalArgumentException("a fleet configuration error needs at least one error");
    }
    this.errors = List.copyOf(errors);
  }

  /** Every problem found, in the order found, each starting with its JSON path. */
  public List<String> errors() {
    return errors;
  }

  private static String message(String summary, List<String> errors) {
    StringBuilder sb = new StringBuilder(summary);
    sb.append(" (").append(errors.size()).append(errors.size() == 1 ? " error):" : " errors):");
    for (String error : errors) {
      sb.append('\n').append(error);
    }
    return sb.toString();
  }
}
