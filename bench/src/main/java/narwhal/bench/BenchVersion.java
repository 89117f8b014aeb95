package narwhal.bench;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import picocli.CommandLine.IVersionProvider;

/** {@code --version}: the project version, from a resource the build fills in (no manifest on a test's class path). */
final class BenchVersion implements IVersionProvider {

  @Override
  public String[] getVersion() throws IOException {
    try (InputStream in = BenchVersion.class.getResourceAsStream("version.properties")) {
      Properties p = new Properties();
      if (in != null) {
        p.load(in);
      }
      return new String[] {"narwhal bench " + p.getProperty("version", "unknown")};
    }
  }
}
