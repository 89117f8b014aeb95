package narwhal.core.profile;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The profiles the router prices work with, one per engine, replaceable while it serves (a
 * restarted engine's stale row gives way to the fleet's profile, see {@link ProfileAssignment}).
 * Reads are a volatile read of an immutable snapshot, so admission and placement on every event
 * loop never lock.
 */
public final class ProfileBook {

  private static final ProfileStatus NOT_LOADED = ProfileStatus.none("no profiles loaded");

  /** Every engine's status and, apart, the profiles priced with: swapped together. */
  private record Snapshot(Map<String, ProfileStatus> statuses, Map<String, EngineProfile> profiles) {

    static Snapshot of(Map<String, ProfileStatus> statuses) {
      Map<String, EngineProfile> profiles = new LinkedHashMap<>();
      statuses.forEach((iid, s) -> {
        if (s.profile() != null) {
          profiles.put(iid, s.profile());
        }
      });
      return new Snapshot(java.util.Collections.unmodifiableMap(new LinkedHashMap<>(statuses)),
          java.util.Collections.unmodifiableMap(profiles));
    }
  }

  private volatile Snapshot snapshot = Snapshot.of(Map.of());

  /** A book with no profiles: every lookup answers null and pricing falls back to open behaviour. */
  public static ProfileBook empty() {
    return new ProfileBook();
  }

  /** Replaces every engine's status (and so the profile it is priced with) at once. */
  public synchronized void install(Map<String, ProfileStatus> statuses) {
    snapshot = Snapshot.of(statuses);
  }

  /** Replaces every profile with {@code profiles}, each as the engine's own. */
  public synchronized void replaceAll(Collection<EngineProfile> profiles) {
    Map<String, ProfileStatus> next = new LinkedHashMap<>();
    for (EngineProfile p : profiles) {
      next.put(p.iid(), new ProfileStatus(ProfileSource.OWN, null, p));
    }
    snapshot = Snapshot.of(next);
  }

  /** Adds or replaces one engine's profile, as its own. */
  public synchronized void put(EngineProfile profile) {
    Map<String, ProfileStatus> next = new LinkedHashMap<>(snapshot.statuses());
    next.put(profile.iid(), new ProfileStatus(ProfileSource.OWN, null, profile));
    snapshot = Snapshot.of(next);
  }

  /** The profile engine {@code iid} is priced with (its own or the fleet's), or null when none. */
  public @Nullable EngineProfile get(String iid) {
    return snapshot.profiles().get(iid);
  }

  /** Which profile engine {@code iid} is priced with, and why. */
  public ProfileStatus status(String iid) {
    return snapshot.statuses().getOrDefault(iid, NOT_LOADED);
  }

  /** Every profile held, by iid. */
  public Map<String, EngineProfile> all() {
    return snapshot.profiles();
  }

  public boolean isEmpty() {
    return snapshot.profiles().isEmpty();
  }
}
