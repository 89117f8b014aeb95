package narwhal.bench.adaptive;

/**
 * One arm of the adaptive benchmark: how many of the four engines start in the prefill role,
 * whether admission is priced, and whether the role controller may move engines (a static split
 * pins every engine, so the controller never does).
 */
record Configuration(String name, int prefillEngines, boolean predictive, boolean adaptive) {

  static Configuration staticSplit(int prefill, int engines) {
    return new Configuration(prefill + "P" + (engines - prefill) + "D", prefill, false, false);
  }

  Configuration withPredictiveAdmission() {
    return new Configuration(name + "+predictive", prefillEngines, true, adaptive);
  }

  static Configuration adaptiveFrom(int prefill) {
    return new Configuration("adaptive", prefill, true, true);
  }
}
