package narwhal.core.control;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import narwhal.config.ReactiveConfig;
import narwhal.core.fleet.DecodePace;
import narwhal.core.fleet.EngineState;
import narwhal.core.profile.DecodeModel;
import narwhal.core.profile.EngineProfile;
import narwhal.core.profile.PrefillBacklog;
import narwhal.core.profile.PrefillModel;
import narwhal.core.profile.ProfileBook;

/**
 * Turns the fleet's live state into loads once per monitor tick (section 6 of the reference):
 *
 * <ul>
 *   <li>prefill load = predicted resident prefill work ({@link PrefillBacklog}) / {@code slo.ttft_s};
 *   <li>decode load = max(0, interval − floor) / (tpot − floor), where interval is the mean gap
 *       between tokens the router saw from the engine over the tick ({@link DecodePace}) and floor
 *       is the profile's base interval times the engine's {@link DecodeCorrection}.
 * </ul>
 *
 * <p>An engine whose floor is at or above the TPOT target would divide by zero or less; its
 * headroom is held at 5 % of the target, so such an engine shows a large load instead.
 *
 * <p>Confined to the controller's loop; it drains every engine's pace each tick, so one sample is
 * one tick whatever the engine's role.
 */
final class LoadSampler {

  /** The least decode headroom (tpot − floor), as a share of the TPOT target. */
  static final double MIN_HEADROOM = 0.05;

  private final ControllerSettings settings;
  private final Map<String, DecodeCorrection> corrections = new HashMap<>();
  /** Each engine's resident decode tokens and sequences at the previous tick. */
  private final Map<String, long[]> previousResidency = new HashMap<>();

  LoadSampler(ControllerSettings settings) {
    this.settings = settings;
  }

  PoolLoads sample(Collection<EngineState> engines, ProfileBook book) {
    double ttft = settings.slo().ttftS();
    double tpot = settings.slo().tpotS();
    List<EngineLoad> loads = new ArrayList<>();
    List<PrefillModel> prefillModels = new ArrayList<>();
    List<DecodeModel> decodeModels = new ArrayList<>();
    int prefillSize = 0;
    double backlog = 0;
    double prefillLoadSum = 0;
    int decodeSize = 0;
    int decodeProfiled = 0;
    double floorSum = 0;
    double excessSum = 0;
    double decodeLoadSum = 0;
    double seatsSum = 0;
    int residentDecodes = 0;
    for (EngineState e : engines) {
      DecodePace.Sample pace = e.decodePace().drain();
      long tokens = e.residentDecodeTokens();
      int sequences = e.residentDecode();
      long[] before = previousResidency.put(e.iid(), new long[] {tokens, sequences});
      boolean prefillMember = e.inPlacement() && e.role().canPrefill();
      boolean decodeMember = e.inPlacement() && e.role().canDecode();
      prefillSize += prefillMember ? 1 : 0;
      decodeSize += decodeMember ? 1 : 0;
      residentDecodes += decodeMember ? sequences : 0;
      EngineProfile profile = book.get(e.iid());
      if (profile == null) {
        loads.add(new EngineLoad(e.iid(), e.role(), e.inPlacement(), false, Double.NaN, pace.meanSeconds(),
            Double.NaN, Double.NaN, sequences));
        continue;
      }
      double observed = pace.meanSeconds();
      DecodeCorrection correction = corrections.computeIfAbsent(e.iid(), k -> newCorrection());
      if (!Double.isNaN(observed)) {
        // Residency changed over the tick: the prediction is for its mean, as the observation is.
        long meanTokens = before == null ? tokens : Math.round((tokens + before[0]) / 2.0);
        int meanSequences = before == null ? sequences : (int) Math.round((sequences + before[1]) / 2.0);
        correction.observe(observed, profile.decode().intervalSeconds(meanTokens, meanSequences));
      }
      double factor = correction.factor();
      double floor = profile.decode().baseS() * factor;
      double interval = Double.isNaN(observed)
          ? factor * profile.decode().intervalSeconds(tokens, sequences) : observed;
      double decodeLoad = Math.max(0, interval - floor) / Math.max(tpot - floor, MIN_HEADROOM * tpot);
      double engineBacklog = PrefillBacklog.seconds(e, profile.prefill());
      double prefillLoad = engineBacklog / ttft;
      loads.add(new EngineLoad(e.iid(), e.role(), e.inPlacement(), true, prefillLoad, interval, floor, decodeLoad,
          sequences));
      if (prefillMember) {
        prefillModels.add(profile.prefill());
        backlog += engineBacklog;
        prefillLoadSum += prefillLoad;
      }
      if (decodeMember) {
        decodeProfiled++;
        decodeModels.add(profile.decode());
        floorSum += floor;
        excessSum += Math.max(0, interval - floor);
        decodeLoadSum += decodeLoad;
        seatsSum += profile.decode().maxSequences();
      }
    }
    int prefillProfiled = prefillModels.size();
    PrefillPool prefill = new PrefillPool(prefillSize, prefillProfiled, backlog,
        prefillProfiled == 0 ? Double.NaN : prefillLoadSum / prefillProfiled, prefillModels);
    DecodePool decode = decodeProfiled == 0
        ? new DecodePool(decodeSize, 0, Double.NaN, Double.NaN, Double.NaN, residentDecodes, 0, List.of())
        : new DecodePool(decodeSize, decodeProfiled, floorSum / decodeProfiled, excessSum / decodeProfiled,
            decodeLoadSum / decodeProfiled, residentDecodes, seatsSum / decodeProfiled, decodeModels);
    return new PoolLoads(loads, prefill, decode);
  }

  /** The correction factor in force for {@code iid} (1 before it has enough samples). */
  double correction(String iid) {
    DecodeCorrection c = corrections.get(iid);
    return c == null ? 1.0 : c.factor();
  }

  private DecodeCorrection newCorrection() {
    ReactiveConfig r = settings.reactive();
    return new DecodeCorrection(r.decodeCorrectionMin(), r.decodeCorrectionMax(), r.decodeCorrectionAlpha(),
        r.decodeCorrectionMinSamples());
  }
}
