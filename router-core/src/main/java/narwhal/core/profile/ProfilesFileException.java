package narwhal.core.profile;

import java.util.List;
import narwhal.config.FileProblemsException;

/**
 * A profiles file that cannot be used. It carries every problem found in one pass, each prefixed
 * with the JSON path it concerns, e.g. {@code $.engines[1].decode.fit_mape: must be a number >= 0,
 * got -1}, in the fleet file's style.
 */
public final class ProfilesFileException extends FileProblemsException {

  private static final long serialVersionUID = 1L;

  /**
   * @param summary what was being read, e.g. the file name; the message is this summary followed by
   *     one error per line
   */
  public ProfilesFileException(String summary, List<String> errors) {
    super(summary, errors, "profiles file");
  }
}
