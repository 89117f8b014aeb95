package narwhal.spi;

import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeMap;

/** The engine dialects present on the class path, by name. */
public final class EngineDialects {

  private final Map<String, EngineDialect> byName;

  private EngineDialects(Map<String, EngineDialect> byName) {
    this.byName = Map.copyOf(byName);
  }

  /** Every dialect registered through {@link ServiceLoader}. */
  public static EngineDialects discover() {
    Map<String, EngineDialect> found = new TreeMap<>();
    for (EngineDialect d : ServiceLoader.load(EngineDialect.class, EngineDialects.class.getClassLoader())) {
      EngineDialect previous = found.putIfAbsent(d.name(), d);
      if (previous != null && previous.getClass() != d.getClass()) {
        throw new IllegalStateException("two engine dialects are named '" + d.name() + "': "
            + previous.getClass().getName() + " and " + d.getClass().getName());
      }
    }
    return new EngineDialects(found);
  }

  public static EngineDialects of(EngineDialect... dialects) {
    Map<String, EngineDialect> m = new TreeMap<>();
    for (EngineDialect d : dialects) {
      m.put(d.name(), d);
    }
    return new EngineDialects(m);
  }

  public EngineDialect get(String name) {
    EngineDialect d = byName.get(name);
    if (d == null) {
      throw new IllegalArgumentException("no engine dialect named '" + name + "'; present: " + names());
    }
    return d;
  }

  public Set<String> names() {
    return new java.util.TreeSet<>(byName.keySet());
  }
}
