package narwhal.engines.sglang;

import narwhal.adapters.kit.AdapterConformanceSuite;
import narwhal.adapters.kit.AdapterUnderTest;

/** The SGLang adapter passes the adapter conformance kit against engine-sim in SGLang mode. */
class SglangConformanceTest extends AdapterConformanceSuite {

  @Override
  protected AdapterUnderTest adapter() {
    return new SglangOnEngineSim();
  }
}
