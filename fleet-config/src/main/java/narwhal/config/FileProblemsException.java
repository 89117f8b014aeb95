package narwhal.config;

import java.util.List;

/**
 * A file the router reads (the fleet file, the profiles file) that cannot be used, with every
 * problem found in one pass, each starting with the JSON path it concerns. The message is the
 * summary, the count, and one problem per line, so an operator fixes them all in one edit.
 */
public abstract class FileProblemsException extends Exception {

  private static final long serialVersionUID = 1L;

  private final List<String> errors;

  /**
   * @param summary what was being read, e.g. the file name; the message is this summary followed by
   *     one error per line
   * @param what the kind of file, for the error when {@code errors} is empty (a caller's bug)
   */
  protected FileProblemsException(String summary, List<String> errors, String what) {
    super(message(summary, errors));
    if (errors.isEmpty()) {
      throw new IllegalArgumentException("a " + what + " error needs at least one error");
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
