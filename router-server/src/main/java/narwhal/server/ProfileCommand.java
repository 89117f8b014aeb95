package narwhal.server;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import narwhal.cluster.Cluster;
import narwhal.config.EngineSpec;
import narwhal.config.FleetConfig;
import narwhal.core.profile.ProfileRow;
import narwhal.core.profile.ProfilesDocument;
import narwhal.core.profile.ProfilesFile;
import narwhal.core.profile.ProfilesFileException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code narwhal profile --fleet FILE}: measures each engine (prefill time against prompt length,
 * the decode interval against resident tokens and active sequences), fits the profile models,
 * prints a table and writes the rows that meet the limits to {@code profiles.path} (or {@code
 * --out}). Rows of engines not measured this time, or whose measurement failed, keep their
 * previous row. Exit status 0 when every engine measured passed, 1 when any could not be measured
 * or missed the limits, 2 for a usage or fleet-file error. The router must not be serving these
 * engines meanwhile: client traffic would be measured too.
 */
@Command(name = "profile", sortOptions = false,
    description = {"Measures each engine's prefill time and decode interval, fits its latency profile and writes "
        + "profiles.path (or --out). Run it with the router stopped. Exit status 0 when every engine passed, 1 when "
        + "any could not be measured or its decode fit missed the profiles limits, 2 for a usage or fleet-file error."})
final class ProfileCommand implements Callable<Integer> {

  static final int FAILED = 1;

  @ParentCommand
  private Narwhal narwhal;

  @Option(names = "--fleet", required = true, paramLabel = "FILE", description = "the fleet file")
  private Path fleet;

  @Option(names = "--out", paramLabel = "PATH", description = "where to write the profiles (default: the fleet's "
      + "profiles.path)")
  private Path out;

  @Option(names = "--engine", paramLabel = "IID", description = "measure only this engine (repeatable; default: all)")
  private List<String> only = new ArrayList<>();

  @Option(names = "--budget-s", paramLabel = "SECONDS",
      description = "the whole run's time, shared by the engines (default ${DEFAULT-VALUE})")
  private double budgetS = 60;

  @Option(names = "--max-prompt-tokens", paramLabel = "N",
      description = "the longest prompt measured (default: half the engine's max_model_len)")
  private long maxPromptTokens = Long.MAX_VALUE;

  @Option(names = "--max-seqs", paramLabel = "N",
      description = "the largest batch of concurrent streams; the role controller reads it as the engine's sequence "
          + "capacity, so give the batch the engine runs at its TPOT target or its --max-num-seqs (default ${DEFAULT-VALUE})")
  private int maxSeqs = 32;

  @Option(names = "--decode-tokens", paramLabel = "N",
      description = "tokens each measured stream generates (default ${DEFAULT-VALUE})")
  private int decodeTokens = 64;

  @Option(names = "--repeats", paramLabel = "N",
      description = "prefill legs per prompt length; the median counts (default ${DEFAULT-VALUE})")
  private int repeats = 3;

  private ProfileCommand() {}

  @Override
  public Integer call() {
    validate();
    FleetConfig config = FleetFiles.readOrReport("narwhal profile", fleet, narwhal.err, c -> c);
    if (config == null) {
      return CheckCommand.CONFIG_ERROR;
    }
    List<EngineSpec> engines = selected(config);
    Path target = out != null ? out : Path.of(config.profiles().path());
    List<ProfileRun.Result> results = ProfileRun.measure(config, engines,
        new ProfileRun.Options(Duration.ofMillis(Math.round(budgetS * 1000)), maxPromptTokens, maxSeqs, decodeTokens,
            repeats), narwhal.err);
    ProfileTable.lines(results, config.profiles().maxDecodeFitMape(), config.profiles().maxDecodeCvMape())
        .forEach(narwhal.out::println);
    narwhal.out.flush();
    List<ProfileRow> measured = results.stream().map(r -> r.measurement().row()).filter(r -> r != null).toList();
    List<String> failed = results.stream().filter(ProfileRun.Result::failed).map(r -> r.engine().iid()).toList();
    List<String> skipped = results.stream().filter(r -> r.skipped() != null).map(r -> r.engine().iid()).toList();
    if (!measured.isEmpty()) {
      try {
        write(target, config, measured);
      } catch (IOException e) {
        narwhal.err.println("narwhal profile: cannot write " + target + ": " + e);
        return FAILED;
      }
    }
    List<String> small = results.stream().filter(r -> r.smallBatchWarning() != null).map(r -> r.engine().iid())
        .toList();
    if (!small.isEmpty()) {
      // Loud on purpose: the row is written and serves, and only the controller's later moves show it is off.
      narwhal.err.println("narwhal profile: WARNING: " + (small.size() == 1 ? "the profile of " : "the profiles of ")
          + String.join(", ", small) + " measured only small batches, which the role controller reads as an "
          + "engine's capacity; see WARNING above for what to change");
    }
    if (failed.isEmpty()) {
      narwhal.err.println("narwhal profile: " + (measured.isEmpty() ? "nothing to write"
          : "wrote " + measured.size() + (measured.size() == 1 ? " row" : " rows") + " to " + target)
          + (skipped.isEmpty() ? "" : "; " + String.join(", ", skipped) + " cannot be profiled (see skip above) "
              + "and need no row"));
      return 0;
    }
    narwhal.err.println("narwhal profile: " + String.join(", ", failed) + (failed.size() == 1 ? " was" : " were")
        + " not profiled (see FAIL above); "
        + (measured.isEmpty() ? "nothing written" : "wrote the " + measured.size() + " passing rows to " + target)
        + "; a failed engine keeps its previous row, if it had one");
    return FAILED;
  }

  private void validate() {
    if (!(budgetS > 0) || maxPromptTokens < 2 || maxSeqs < 1 || decodeTokens < 8 || repeats < 1) {
      throw new IllegalArgumentException("--budget-s must be > 0, --max-prompt-tokens >= 2, --max-seqs >= 1, "
          + "--decode-tokens >= 8 and --repeats >= 1");
    }
  }

  private List<EngineSpec> selected(FleetConfig config) {
    if (only.isEmpty()) {
      return config.engines();
    }
    Set<String> wanted = new LinkedHashSet<>(only);
    List<EngineSpec> out = config.engines().stream().filter(e -> wanted.contains(e.iid())).toList();
    wanted.removeAll(out.stream().map(EngineSpec::iid).toList());
    if (!wanted.isEmpty()) {
      throw new IllegalArgumentException("--engine names no engine of " + fleet + ": " + String.join(", ", wanted)
          + " (its engines: " + String.join(", ", config.engines().stream().map(EngineSpec::iid).toList()) + ")");
    }
    return out;
  }

  /**
   * The new rows over the file's old ones, in fleet order; rows of engines the fleet no longer
   * names are dropped. An old file that cannot be read is replaced (it would stop the router anyway).
   */
  private void write(Path target, FleetConfig config, List<ProfileRow> measured) throws IOException {
    Map<String, ProfileRow> rows = new LinkedHashMap<>();
    try {
      ProfilesDocument old = ProfilesFile.readIfExists(target);
      if (old != null) {
        rows.putAll(old.byIid());
      }
    } catch (ProfilesFileException e) {
      narwhal.err.println("narwhal profile: replacing " + target + ", which cannot be used:");
      e.errors().forEach(line -> narwhal.err.println("  " + line));
    }
    measured.forEach(r -> rows.put(r.iid(), r));
    List<ProfileRow> ordered = new ArrayList<>();
    for (EngineSpec e : config.engines()) {
      if (rows.containsKey(e.iid())) {
        ordered.add(rows.get(e.iid()));
      }
    }
    ProfilesDocument doc = new ProfilesDocument(ordered);
    ProfilesFile.write(target, doc);
    if (config.cluster() != null) {
      // One run serves every replica: they install what etcd holds, and the file stays a copy.
      publishToCluster(config, doc);
    }
  }

  private void publishToCluster(FleetConfig config, ProfilesDocument doc) {
    Cluster.publishProfiles(config.cluster(), doc);
    narwhal.err.println("narwhal profile: wrote the profiles to etcd (" + config.cluster().keyPrefix()
        + "/profiles) for every replica");
  }
}
