package narwhal.server;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import picocli.CommandLine.IVersionProvider;

/**
 * {@code --version}: the project version, from a resource the build fills in (so it is right in
 * the runnable jar and on a test's class path alike, where there is no jar manifest).
 */
public final class NarwhalVersion implements IVersionProvider {

  /** The project version, e.g. {@code 0.1.0-SNAPSHOT}. */
  public static String version() {
    try (InputStream in = NarwhalVersion.class.getResourceAsStream("version.properties")) {
      if (in == null) {
        return "unknown (built without narwhal/server/version.properties)";
      }
      Properties p = new Properties();
      p.load(in);
      return p.getProperty("version", "unknown");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public String[] getVersion() {
    return new String[] {"narwhal " + version()};
  }
}
