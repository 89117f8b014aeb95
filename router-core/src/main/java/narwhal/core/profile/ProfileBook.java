package narwhal.core.profile;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The profiles the router prices work with, one per engine, replaceable while it serves (a
 * re-profiled engine's row replaces the old one). Reads are a volatile read of an immutable map,
 * so admission and placement on every event loop never lock.
 */
public final class ProfileBook {

  private volatile Map<String, EngineProfile> byIid = Map.of();

  /** A book with no profiles: every lookup answers null and pricing falls back to open behaviour. */
  public static ProfileBook empty() {
    return new ProfileBook();
  }

  /** Replaces every profile with {@code profiles}. */
  public void replaceAll(Collection<EngineProfile> profiles) {
    Map<String, EngineProfile> next = new LinkedHashMap<>();
    for (EngineProfile p : profiles) {
      next.put(p.iid(), p);
    }
    byIid = Map.copyOf(next);
  }

  /** Adds or replaces one engine's profile. */
  public synchronized void put(EngineProfile profile) {
    Map<String, EngineProfile> next = new LinkedHashMap<>(byIid);
    next.put(profile.iid(), profile);
    byIid = Map.copyOf(next);
  }

  /** The engine's own profile, or null when it has none. */
  public @Nullable EngineProfile get(String iid) {
    return byIid.get(iid);
  }

  /** Every profile held, by iid. */
  public Map<String, EngineProfile> all() {
    return byIid;
  }

  public boolean isEmpty() {
    return byIid.isEmpty();
  }
}
