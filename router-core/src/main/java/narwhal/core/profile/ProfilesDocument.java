package narwhal.core.profile;

import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * The profiles file's content ({@code schema: "narwhal.profiles"}, {@code schema_version: 1}): one
 * {@link ProfileRow} per engine, iids unique.
 */
public record ProfilesDocument(List<ProfileRow> rows) {

  public static final String SCHEMA = "narwhal.profiles";
  public static final int SCHEMA_VERSION = 1;

  public ProfilesDocument {
    rows = List.copyOf(rows);
    if (rows.stream().map(ProfileRow::iid).distinct().count() != rows.size()) {
      throw new IllegalArgumentException("a profiles document holds one row per engine");
    }
  }

  public static ProfilesDocument empty() {
    return new ProfilesDocument(List.of());
  }

  /** The row of engine {@code iid}, or null. */
  public @Nullable ProfileRow row(String iid) {
    for (ProfileRow r : rows) {
      if (r.iid().equals(iid)) {
        return r;
      }
    }
    return null;
  }

  /** Rows by iid, in file order. */
  public Map<String, ProfileRow> byIid() {
    return rows.stream().collect(Collectors.toMap(ProfileRow::iid, Function.identity(), (a, b) -> a,
        java.util.LinkedHashMap::new));
  }
}
