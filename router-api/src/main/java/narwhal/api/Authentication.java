package narwhal.api;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The result of checking one {@code Authorization} value: the caller it proves, or the refusal to
 * answer (401) and why, for the metric {@code narwhal_auth_failures_total{reason}}.
 *
 * @param caller the authenticated caller, or null when refused
 * @param refusal what to answer the client, or null when accepted
 * @param reason why it was refused ({@code missing}, {@code unknown}, ...), or null when accepted
 */
public record Authentication(@Nullable Caller caller, @Nullable RouterError refusal, @Nullable String reason) {

  public Authentication {
    if ((caller == null) == (refusal == null)) {
      throw new IllegalArgumentException("exactly one of caller and refusal");
    }
  }

  public static Authentication accepted(Caller caller) {
    return new Authentication(Objects.requireNonNull(caller, "caller"), null, null);
  }

  public static Authentication refused(RouterError refusal, String reason) {
    return new Authentication(null, Objects.requireNonNull(refusal, "refusal"), Objects.requireNonNull(reason));
  }

  public boolean isAccepted() {
    return caller != null;
  }
}
