package narwhal.core.profile;

import java.util.List;

/**
 * A profiles file that cannot be used. It carries every problem found in one pass, each prefixed
 * with the JSON path it concerns, e.g. {@code $.engines[1].decode.fit_mape: must be a number >= 0,
 * got -1}, in the fleet file's style.
 */
public final class ProfilesFileException extends Exception {

  private static final long serialVersionUID = 1L;

  private final List<String> errors;

  /**
   * @param summary what was being read, e.g. the file name; the message is this summary followed by
   *     one error per line
   */
  public ProfilesFileException(String summary, List<String> errors) {
    super(message(summary, errors));
    if (errors.isEmpty()) {
      throw new IllegalArgumentException("a profiles file error needs at least one error");
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
