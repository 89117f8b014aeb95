package narwhal.config;

import java.util.Objects;

/**
 * The etcd user's password, read once at startup from the environment variable {@code
 * cluster.password_env} names. A secret: {@link #toString()} never shows it, so a config printed
 * in a log line, an exception or a test failure cannot leak it; only {@link #reveal()} hands the
 * value out, for the one place that gives it to the etcd client.
 */
public final class ClusterPassword {

  private static final ClusterPassword NONE = new ClusterPassword("");

  private final String value;

  private ClusterPassword(String value) {
    this.value = value;
  }

  public static ClusterPassword none() {
    return NONE;
  }

  public static ClusterPassword of(String value) {
    Objects.requireNonNull(value, "value");
    if (value.isEmpty()) {
      throw new IllegalArgumentException("an etcd password must not be empty");
    }
    return new ClusterPassword(value);
  }

  public boolean isSet() {
    return !value.isEmpty();
  }

  /** The password itself: for the etcd client's credentials only. */
  public String reveal() {
    return value;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ClusterPassword other && value.equals(other.value);
  }

  @Override
  public int hashCode() {
    return value.hashCode();
  }

  @Override
  public String toString() {
    return isSet() ? "ClusterPassword[set, value hidden]" : "ClusterPassword[none]";
  }
}
