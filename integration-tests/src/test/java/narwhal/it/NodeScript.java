package narwhal.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs a Node.js program of one of the test's npm projects (under src/test/) and collects its
 * output. A project whose packages are not installed fails the test with the command that
 * installs them: a conformance check that quietly does not run proves nothing.
 */
final class NodeScript {

  private final Path dir;

  private NodeScript(Path dir) {
    this.dir = dir;
  }

  /**
   * The npm project in {@code src/test/<project>}, checked: node runs and each of
   * {@code packages} is installed in its node_modules.
   */
  static NodeScript project(String project, String... packages) throws Exception {
    NodeScript script = new NodeScript(moduleDir().resolve("src/test").resolve(project));
    Result version;
    try {
      version = script.run(Map.of(), 30, "--version");
    } catch (IOException e) {
      throw new AssertionError("`node` is not on the PATH; src/test/" + project + " needs Node.js 20+", e);
    }
    assertThat(version.exitCode()).as("node --version: %s", version.output()).isZero();
    for (String pkg : packages) {
      if (!Files.isDirectory(script.dir.resolve("node_modules").resolve(pkg))) {
        throw new AssertionError("`" + pkg + "` is not installed in " + script.dir + ": run `npm ci --prefix "
            + "integration-tests/src/test/" + project + "` from the repository root (.ci/run does).");
      }
    }
    return script;
  }

  /** Runs {@code node args...} in the project directory, with {@code env} added to the environment. */
  Result run(Map<String, String> env, int timeoutSeconds, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add("node");
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
    builder.environment().putAll(env);
    Process process = builder.start();
    process.getOutputStream().close();
    ByteArrayOutputStream output = new ByteArrayOutputStream();
    Thread reader = new Thread(() -> copy(process.getInputStream(), output), "node-output");
    reader.start();
    if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
      reader.join(5_000);
      throw new AssertionError("node " + String.join(" ", args) + " did not finish in " + timeoutSeconds
          + " s; output:\n" + output.toString(StandardCharsets.UTF_8));
    }
    reader.join(5_000);
    return new Result(process.exitValue(), output.toString(StandardCharsets.UTF_8));
  }

  private static void copy(InputStream in, ByteArrayOutputStream out) {
    try (in) {
      in.transferTo(out);
    } catch (IOException e) {
      // The process ended; what was read is kept.
    }
  }

  /** The integration-tests module: Surefire's working directory, or its basedir property. */
  private static Path moduleDir() {
    String basedir = System.getProperty("basedir");
    return (basedir != null ? Path.of(basedir) : Path.of("")).toAbsolutePath();
  }

  record Result(int exitCode, String output) {

    /** The program's report: the last line of its output that is a JSON object. */
    String jsonLine() {
      return output.lines().filter(l -> l.startsWith("{")).reduce((a, b) -> b)
          .orElseThrow(() -> new AssertionError("the node program printed no JSON report:\n" + output));
    }
  }
}
