package narwhal.core.profile;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Decides which profile each engine is priced with, from the profiles file's rows and each
 * engine's current process generation:
 *
 * <ul>
 *   <li>a row is <em>fresh</em> when the engine's current generation is unknown (nothing to compare:
 *       no attestation, or a document without {@code process_generation}) or equals the row's; a
 *       row whose generation differs from a known current one (the row's being none included) is
 *       <em>stale</em>: the engine restarted, or was upgraded, since it was measured;
 *   <li>an engine with a fresh row runs on it ({@link ProfileSource#OWN});
 *   <li>an engine with a stale row or no row runs on the fleet's profile ({@link
 *       ProfileSource#FLEET}, see {@link FleetProfile}) when any engine of the fleet has a fresh
 *       row, and on none otherwise.
 * </ul>
 *
 * A pure function; rows of engines the fleet does not name are ignored.
 */
public final class ProfileAssignment {

  private ProfileAssignment() {}

  /**
   * @param iids the fleet's engines, in fleet order
   * @param rows the profiles file's rows by iid
   * @param generations each engine's current generation; an engine missing here counts as unknown
   * @return every engine's status, in fleet order
   */
  public static Map<String, ProfileStatus> assign(
      List<String> iids, Map<String, ProfileRow> rows, Map<String, EngineGeneration> generations) {
    Map<String, @Nullable String> staleBecause = new LinkedHashMap<>();
    List<EngineProfile> fresh = new ArrayList<>();
    for (String iid : iids) {
      ProfileRow row = rows.get(iid);
      if (row == null) {
        staleBecause.put(iid, "no row in the profiles file");
        continue;
      }
      EngineGeneration current = generations.getOrDefault(iid, EngineGeneration.unknown("not read yet"));
      if (current.isKnown() && !Objects.equals(current.value(), row.generation())) {
        staleBecause.put(iid, "stale generation: the row was measured on generation "
            + (row.generation() == null ? "(none reported)" : row.generation()) + ", the engine runs generation "
            + current.value());
      } else {
        staleBecause.put(iid, null);
        fresh.add(row.toProfile());
      }
    }
    Map<String, ProfileStatus> out = new LinkedHashMap<>();
    for (String iid : iids) {
      String why = staleBecause.get(iid);
      if (why == null) {
        EngineGeneration current = generations.getOrDefault(iid, EngineGeneration.unknown("not read yet"));
        String note = current.isKnown() ? null
            : "generation unknown (" + current.unknownBecause() + "): the row cannot be checked against it";
        out.put(iid, new ProfileStatus(ProfileSource.OWN, note, rows.get(iid).toProfile()));
        continue;
      }
      EngineProfile fleet = FleetProfile.of(iid, fresh);
      out.put(iid, fleet == null
          ? ProfileStatus.none(why + "; no engine of the fleet has a fresh row to stand in")
          : new ProfileStatus(ProfileSource.FLEET, why + "; priced with the fleet's profile (the median of "
              + fresh.size() + (fresh.size() == 1 ? " fresh row)" : " fresh rows)"), fleet));
    }
    return out;
  }
}
