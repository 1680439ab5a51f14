// Placeholder until scripts/train-ai-ecn-model.mjs writes the trained library.
import type { AiEcnModelLibrary } from "./ai-ecn-model.js";

export const AI_ECN_MODELS: AiEcnModelLibrary = {
  features: ["elephantFlows", "activeFlows", "elephantShare", "load"],
  maxDistance: 0.2,
  patterns: [],
};
