package narwhal.server;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import narwhal.core.profile.DecodeModel;
import narwhal.core.profile.PrefillModel;
import narwhal.core.profile.ProfileFits;
import narwhal.core.profile.measure.EngineMeasurement;

/**
 * {@code narwhal profile}'s report: one table row per engine (the fitted models, their domains,
 * the decode fit's errors against the limits, the verdict), then what failed and why.
 *
 * <pre>
 * iid  generation  prefill_s = base + a·L + b·L²     L         decode_s = base + c·T + d·S       T≤     S≤  fit    cv     result
 * p0   7           0.00213 + 2.01e-05·L + 0·L²        32..16384 0.00503 + 0·T + 2.5e-04·S        67584  32  0.8 %  1.2 %  ok
 * </pre>
 */
final class ProfileTable {

  private ProfileTable() {}

  static List<String> lines(List<ProfileRun.Result> results, double maxFit, double maxCv) {
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"iid", "generation", "prefill_s = base + a·L + b·L²", "L", "decode_s = base + c·T + d·S",
        "T<=", "S<=", "fit_mape", "cv_mape", "result"});
    for (ProfileRun.Result r : results) {
      EngineMeasurement m = r.measurement();
      ProfileFits.Prefill p = m.prefill();
      ProfileFits.Decode d = m.decode();
      String generation = m.row() == null ? "-" : m.row().generation() == null ? "unknown" : m.row().generation();
      rows.add(new String[] {
          m.iid(),
          generation,
          p == null ? "-" : prefill(p.model()),
          p == null ? "-" : p.model().minTokens() + ".." + p.model().maxTokens(),
          d == null ? "-" : decode(d.model()),
          d == null ? "-" : Long.toString(d.model().maxResidentTokens()),
          d == null ? "-" : Integer.toString(d.model().maxSequences()),
          d == null ? "-" : percent(d.quality().mape()) + (d.quality().mape() > maxFit ? "!" : ""),
          d == null ? "-" : percent(d.quality().cvMape()) + (d.quality().cvMape() > maxCv ? "!" : ""),
          r.skipped() != null ? "skip" : m.passed() ? "ok" : "FAIL"});
    }
    int[] widths = new int[rows.get(0).length];
    for (String[] row : rows) {
      for (int i = 0; i < row.length; i++) {
        widths[i] = Math.max(widths[i], row[i].length());
      }
    }
    List<String> out = new ArrayList<>();
    for (String[] row : rows) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < row.length; i++) {
        line.append(i == row.length - 1 ? row[i] : String.format("%-" + widths[i] + "s  ", row[i]));
      }
      out.add(line.toString());
    }
    out.add("limits: fit_mape <= " + percent(maxFit) + " (profiles.max_decode_fit_mape), cv_mape <= " + percent(maxCv)
        + " (profiles.max_decode_cv_mape); ! marks a miss");
    for (ProfileRun.Result r : results) {
      if (r.skipped() != null) {
        out.add(r.engine().iid() + " skip: " + r.skipped());
        continue;
      }
      for (String problem : r.measurement().problems()) {
        out.add(r.engine().iid() + " FAIL: " + problem);
      }
      for (String note : r.measurement().notes()) {
        out.add(r.engine().iid() + " note: " + note);
      }
    }
    for (ProfileRun.Result r : results) {
      String warning = r.smallBatchWarning();
      if (warning != null) {
        out.add(r.engine().iid() + " WARNING: " + warning);
      }
    }
    return out;
  }

  static String prefill(PrefillModel m) {
    return String.format(Locale.ROOT, "%s + %s·L + %s·L²", number(m.baseS()), number(m.perTokenS()),
        number(m.perTokenSquaredS()));
  }

  static String decode(DecodeModel m) {
    return String.format(Locale.ROOT, "%s + %s·T + %s·S", number(m.baseS()), number(m.perResidentTokenS()),
        number(m.perSequenceS()));
  }

  /** Three significant digits; 0 as 0. */
  static String number(double v) {
    if (v == 0) {
      return "0";
    }
    return v >= 1e-3 && v < 1e4 ? String.format(Locale.ROOT, "%.3g", v) : String.format(Locale.ROOT, "%.2e", v);
  }

  static String percent(double fraction) {
    return String.format(Locale.ROOT, "%.1f %%", fraction * 100);
  }
}
