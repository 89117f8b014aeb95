package narwhal.config;

import java.util.List;

/**
 * A fleet file that cannot be used. It carries every problem found in one pass, each prefixed with
 * the JSON path it concerns, e.g. {@code $.serving.max_attempts: must be an integer >= 1, got
 * "two"}.
 */
public final class FleetConfigException extends FileProblemsException {

  private static final long serialVersionUID = 1L;

  public FleetConfigException(List<String> errors) {
    this("invalid fleet configuration", errors);
  }

  /**
   * @param summary what was being read, e.g. the file name; the message is this summary followed by
   *     one error per line
   */
  public FleetConfigException(String summary, List<String> errors) {
    super(summary, errors, "fleet configuration");
  }
}
