package narwhal.server;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import narwhal.config.EngineSpec;
import narwhal.config.FleetConfig;
import narwhal.config.FleetConfigException;
import narwhal.config.FleetFileParser;
import narwhal.spi.EngineDialects;
import org.jspecify.annotations.Nullable;

/**
 * Reads fleet files the way every command of the server must: {@code engine.dialect} and each
 * {@code engines[].dialect} are checked against the dialects actually on the class path, and each
 * engine's {@code dialect_options} against its dialect, so a router never starts with a fleet it
 * cannot speak to.
 */
public final class FleetFiles {

  private FleetFiles() {}

  /**
   * The fleet file at {@code file}, validated against the dialects present.
   *
   * @throws FleetConfigException listing every problem, the dialects' own included
   */
  public static FleetConfig read(Path file) throws FleetConfigException {
    EngineDialects dialects = EngineDialects.discover();
    FleetConfig config = FleetFileParser.read(file, System::getenv, dialects.names());
    List<String> problems = problems(config, dialects);
    problems.addAll(unattested(config));
    if (!problems.isEmpty()) {
      throw new FleetConfigException("invalid fleet file " + file, problems);
    }
    return config;
  }

  /**
   * The fleet file for {@code command}, or null after printing why it cannot be used: one line
   * when the file cannot be read at all (a wrong path is the commonest first mistake), else every
   * problem with its JSON path.
   */
  static @Nullable FleetConfig readOrReport(String command, Path file, PrintStream err, Adjust adjust) {
    try {
      return adjust.apply(read(file));
    } catch (FleetConfigException e) {
      if (e.getMessage().startsWith(UNREADABLE) && e.errors().size() == 1) {
        err.println(command + ": " + UNREADABLE + " " + file + ": " + e.errors().get(0).replaceFirst("^\\$: ", ""));
      } else {
        err.println(command + ": " + file + " is not a valid fleet file:");
        e.errors().forEach(line -> err.println("  " + line));
      }
      err.flush();
      return null;
    }
  }

  /** A step after reading that may find more problems (serve's TLS flags). */
  @FunctionalInterface
  interface Adjust {
    FleetConfig apply(FleetConfig config) throws FleetConfigException;
  }

  /** The parser's summary when the file itself could not be read. */
  private static final String UNREADABLE = "cannot read fleet file";

  /**
   * What the engines' dialects say is wrong with how each engine is configured, one line per
   * problem, each prefixed with the engine's JSON path and iid; an engine naming a dialect that is
   * not present is a problem too (possible only for a configuration built in code).
   */
  public static List<String> problems(FleetConfig config, EngineDialects dialects) {
    List<String> problems = new ArrayList<>();
    List<EngineSpec> engines = config.engines();
    for (int i = 0; i < engines.size(); i++) {
      EngineSpec engine = engines.get(i);
      String where = "$.engines[" + i + "] (" + engine.iid() + "): ";
      if (!dialects.names().contains(engine.dialect())) {
        problems.add(where + "dialect '" + engine.dialect() + "' is not present in this router; present: "
            + dialects.names());
        continue;
      }
      for (String problem : dialects.get(engine.dialect()).configurationProblems(engine)) {
        problems.add(where + problem);
      }
    }
    return problems;
  }

  /**
   * Engines a pinned {@code engine_contract} can never be checked against: the contract is enforced
   * by comparing it with each engine's attestation document, so an engine without {@code
   * attestation_url} is a fleet-file error for {@code check} and {@code serve} alike, whatever
   * {@code --preflight} says. (A router built in code may pin a contract for its lease bound alone.)
   */
  static List<String> unattested(FleetConfig config) {
    List<String> problems = new ArrayList<>();
    if (config.engineContract() == null) {
      return problems;
    }
    List<EngineSpec> engines = config.engines();
    for (int i = 0; i < engines.size(); i++) {
      if (engines.get(i).attestationUrl() == null) {
        problems.add("$.engines[" + i + "] (" + engines.get(i).iid() + "): engine_contract is pinned but this engine "
            + "has no attestation_url: set it to the URL of the engine's attestation document so the router can "
            + "compare the contract");
      }
    }
    return problems;
  }
}
