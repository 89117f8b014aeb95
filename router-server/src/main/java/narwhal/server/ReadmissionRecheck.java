package narwhal.server;

import java.util.Map;
import narwhal.core.health.HealthEvents;
import narwhal.core.profile.ProfileBinder;
import org.jspecify.annotations.Nullable;

/**
 * A breaker event sink that has {@link ProfileBinder} read an engine's generation again when the
 * breaker readmits it: an engine that went away and came back may be a new process, and its row a
 * stale one. Added beside the journal's and the metrics' sinks. (Here, in the assembly, so that
 * neither the breaker's package nor the profiles' depends on the other.)
 */
final class ReadmissionRecheck implements HealthEvents {

  /** Set once the binder exists: the breaker is built before the router whose book it fills. */
  private volatile @Nullable ProfileBinder binder;

  ReadmissionRecheck() {}

  /** From now on, readmissions reach {@code target}. */
  void attach(ProfileBinder target) {
    this.binder = target;
  }

  @Override
  public void record(String event, Map<String, Object> fields) {
    ProfileBinder b = binder;
    if (b != null && "readmitted".equals(event) && fields.get("iid") instanceof String iid) {
      b.recheck(iid);
    }
  }
}
