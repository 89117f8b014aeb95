package narwhal.adapters.kit;

import java.util.List;
import narwhal.api.RouterError;
import org.jspecify.annotations.Nullable;

/**
 * What the client of one request saw.
 *
 * @param tokens the generated tokens' texts, in order
 * @param started whether the response was committed (the first token arrived)
 * @param completed whether it ended with {@code [DONE]}
 * @param error the terminal error, or null
 * @param log every sink call in order ({@code start}, {@code token}, {@code metadata}, {@code
 *     complete}, {@code error 502})
 * @param sinkViolations calls out of the {@code ClientSink} order
 */
public record ClientOutcome(
    List<String> tokens,
    boolean started,
    boolean completed,
    @Nullable RouterError error,
    List<String> log,
    List<String> sinkViolations) {

  /** The error; fails when there is none. */
  public RouterError requireError() {
    if (error == null) {
      throw new AssertionError("expected the request to fail, but the client saw " + log);
    }
    return error;
  }

  public String text() {
    return String.join("", tokens);
  }
}
