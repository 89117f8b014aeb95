package narwhal.core.checks;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import narwhal.config.AdmissionMode;
import narwhal.config.ControllerConfig;
import narwhal.config.EngineSpec;
import narwhal.config.FleetConfig;
import narwhal.core.checks.CheckResult.Outcome;
import narwhal.core.profile.EngineGeneration;
import narwhal.core.profile.ProfileAssignment;
import narwhal.core.profile.ProfileRow;
import narwhal.core.profile.ProfileSource;
import narwhal.core.profile.ProfileStatus;
import narwhal.core.profile.ProfilesDocument;
import org.jspecify.annotations.Nullable;

/**
 * Preflight's {@code profile} gate: when the router prices work with profiles, every engine must
 * have a fresh row of its own (see {@link ProfileAssignment}) whose decode fit meets both {@code
 * profiles.max_decode_fit_mape} and {@code profiles.max_decode_cv_mape}. A pure judgement over the
 * profiles file and each engine's current generation; preflight reads both.
 */
public final class ProfileGate {

  public static final String PROFILE = "profile";

  /**
   * The gate's verdict: skipped (with the reason), or one result per judged engine in fleet order,
   * and the engines exempt from it (each with why: a profile of it cannot be measured).
   */
  public record Report(@Nullable String skippedBecause, List<CheckResult> engines, List<CheckResult> exempt) {

    public Report {
      engines = List.copyOf(engines);
      exempt = List.copyOf(exempt);
    }

    public Report(@Nullable String skippedBecause, List<CheckResult> engines) {
      this(skippedBecause, engines, List.of());
    }

    public static Report skipped(String because) {
      return new Report(because, List.of());
    }

    public boolean passed() {
      return engines.stream().allMatch(CheckResult::passed);
    }
  }

  private ProfileGate() {}

  /**
   * Why the router prices with profiles under {@code config}, or null when nothing uses them:
   * predictive admission prices every request; the role controller prices each move, and moves
   * engines unless it is advisory, every engine is pinned, or the floors leave none to move
   * ({@code controller.min_prefill + controller.min_decode} engines or fewer).
   */
  public static @Nullable String use(FleetConfig config) {
    if (config.serving().admission() == AdmissionMode.PREDICTIVE) {
      return "serving.admission is predictive";
    }
    ControllerConfig controller = config.controller();
    long unpinned = config.engines().stream().filter(e -> !e.pin()).count();
    if (!controller.advisory() && unpinned > 0
        && config.engines().size() > controller.minPrefill() + controller.minDecode()) {
      return "the role controller may move engines (controller.advisory is false, " + unpinned + " of "
          + config.engines().size() + " engines not pinned)";
    }
    return null;
  }

  /**
   * The gate over {@code config}'s engines.
   *
   * @param doc the profiles file's rows; null when there is no file or it is invalid
   * @param fileProblems the profiles file's problems when it is invalid, else empty
   * @param generations each engine's current generation, as read by preflight
   */
  public static Report judge(FleetConfig config, @Nullable ProfilesDocument doc, List<String> fileProblems,
      Map<String, EngineGeneration> generations) {
    return judge(config, doc, fileProblems, generations, Map.of());
  }

  /**
   * As above, with engines whose profile cannot be measured ({@code narwhal profile} cannot time
   * an SGLang engine's legs apart: its prefill answers only once a decode engine has joined) left
   * out of the gate: asking for a row nobody can make would be advice nobody can follow. Such an
   * engine is admitted and placed unpriced, as any engine without a profile is.
   *
   * @param unmeasurable iid to why its profile cannot be measured
   */
  public static Report judge(FleetConfig config, @Nullable ProfilesDocument doc, List<String> fileProblems,
      Map<String, EngineGeneration> generations, Map<String, String> unmeasurable) {
    String use = use(config);
    if (use == null) {
      return Report.skipped("serving.admission is open and the role controller moves no engine (advisory, every "
          + "engine pinned, or no engine beyond the controller's floors)");
    }
    Path path = Path.of(config.profiles().path());
    List<CheckResult> exempt = new ArrayList<>();
    unmeasurable.forEach((iid, why) -> exempt.add(new CheckResult(PROFILE, iid, Outcome.INCONCLUSIVE,
        "profile: not asked for: " + why + "; its requests are admitted and placed unpriced", null, null, 0)));
    List<String> ids = config.engines().stream().map(EngineSpec::iid).filter(iid -> !unmeasurable.containsKey(iid))
        .toList();
    if (ids.isEmpty()) {
      return new Report("no engine of this fleet can be profiled (" + String.join("; ",
          new java.util.LinkedHashSet<>(unmeasurable.values())) + "): admission and placement run unpriced",
          List.of(), exempt);
    }
    List<CheckResult> out = new ArrayList<>();
    if (!fileProblems.isEmpty()) {
      String detail = "profiles file " + path + " is invalid (" + String.join("; ", fileProblems) + ")";
      ids.forEach(iid -> out.add(failed(iid, detail)));
      return new Report(null, out, exempt);
    }
    if (doc == null) {
      ids.forEach(iid -> out.add(failed(iid, "no profiles file at " + path + " (" + use + "): run narwhal profile "
          + "--fleet FILE to measure the engines")));
      return new Report(null, out, exempt);
    }
    Map<String, ProfileStatus> statuses = ProfileAssignment.assign(ids, doc.byIid(), generations);
    double maxFit = config.profiles().maxDecodeFitMape();
    double maxCv = config.profiles().maxDecodeCvMape();
    for (String iid : ids) {
      ProfileStatus status = statuses.get(iid);
      ProfileRow row = doc.row(iid);
      if (status.source() != ProfileSource.OWN || row == null) {
        String why = row == null ? "no row in " + path : stalePart(status.reason());
        out.add(failed(iid, why + ": re-run narwhal profile --fleet FILE --engine " + iid));
        continue;
      }
      List<String> misses = new ArrayList<>();
      if (row.decodeFitMape() > maxFit) {
        misses.add("fit MAPE " + percent(row.decodeFitMape()) + " > profiles.max_decode_fit_mape " + percent(maxFit));
      }
      if (row.decodeCvMape() > maxCv) {
        misses.add("CV MAPE " + percent(row.decodeCvMape()) + " > profiles.max_decode_cv_mape " + percent(maxCv));
      }
      if (!misses.isEmpty()) {
        out.add(failed(iid, "the decode fit misses its limits (" + String.join(", ", misses) + "): re-run narwhal "
            + "profile --fleet FILE --engine " + iid + " on an idle engine"));
        continue;
      }
      EngineGeneration g = generations.get(iid);
      String bound = g != null && g.isKnown() ? "generation " + g.value()
          : "generation unknown: " + (g == null ? "not read" : g.unknownBecause());
      out.add(new CheckResult(PROFILE, iid, Outcome.PASSED, "profile: own row (" + bound + "), decode fit "
          + percent(row.decodeFitMape()) + ", CV " + percent(row.decodeCvMape()), null, null, 0));
    }
    return new Report(null, out, exempt);
  }

  private static String stalePart(@Nullable String reason) {
    // The assignment's reason goes on to say what the engine runs on meanwhile; the gate needs
    // only the first part.
    String r = reason == null ? "stale row" : reason;
    int cut = r.indexOf("; ");
    return cut < 0 ? r : r.substring(0, cut);
  }

  private static CheckResult failed(String iid, String detail) {
    return new CheckResult(PROFILE, iid, Outcome.FAILED, "profile: " + detail, null, iid, 0);
  }

  static String percent(double fraction) {
    return String.format(Locale.ROOT, "%.1f %%", fraction * 100);
  }
}
