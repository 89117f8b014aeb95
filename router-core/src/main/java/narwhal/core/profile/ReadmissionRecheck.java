package narwhal.core.profile;

import java.util.Map;
import narwhal.core.health.HealthEvents;

/**
 * A breaker event sink that has {@link ProfileBinder} read an engine's generation again when the
 * breaker readmits it: an engine that went away and came back may be a new process, and its row a
 * stale one. Added beside the journal's and the metrics' sinks.
 */
public final class ReadmissionRecheck implements HealthEvents {

  private final ProfileBinder binder;

  public ReadmissionRecheck(ProfileBinder binder) {
    this.binder = binder;
  }

  @Override
  public void record(String event, Map<String, Object> fields) {
    if ("readmitted".equals(event) && fields.get("iid") instanceof String iid) {
      binder.recheck(iid);
    }
  }
}
