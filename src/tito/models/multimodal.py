"""Whether a served model takes media parts, decided from its ``config.json`` as vLLM 0.33 does.

Why: vLLM refuses an image, audio or video content part on a model without a multimodal
processor with a 400 (``"<model> is not a multimodal model"``; ``*_embeds`` parts: ``"The model
is not multimodal."``), and only a multimodal model gets them as ``content_parts``. vLLM knows it
from the architecture's model class; tito has no model classes, so it keeps vLLM 0.33's list of
multimodal architectures (``vllm.model_executor.models.registry._MULTIMODAL_MODELS``, copied
from that release) and also takes a ``config.json`` with a vision or audio sub-config as
multimodal (architectures newer than the list). A folder in Mistral's format is read by its
``params.json`` (a vision or audio encoder, as vLLM's mistral config adapter reads it).
``tito.json`` ``multimodal`` overrides all. No ``config.json`` (the embedded qwen3, gpt2,
mistral-v3 and gpt-oss folders): text-only.
"""

from __future__ import annotations

from typing import Any

#: vLLM 0.33.0's multimodal architectures (``_MULTIMODAL_MODELS``)
VLLM_MULTIMODAL_ARCHITECTURES = frozenset("""
    Alpamayo2Super AriaForConditionalGeneration AudioFlamingo3ForConditionalGeneration
    BagelForConditionalGeneration BailingMoeV3VLForConditionalGeneration
    BeeForConditionalGeneration Blip2ForConditionalGeneration
    Cohere2VisionForConditionalGeneration CohereAsrForConditionalGeneration
    CohereCompassForConditionalGeneration Cosmos3EdgeForConditionalGeneration
    Cosmos3ForConditionalGeneration DeepseekOCR2ForCausalLM DeepseekOCRForCausalLM
    DeepseekV41ForCausalLM DeepseekV4ForConditionalGeneration DeepseekVLV2ForCausalLM
    DiffusionGemmaForBlockDiffusion Dots3NoteForCausalLM DotsOCRForCausalLM
    Eagle2_5_VLForConditionalGeneration Ernie4_5_VLMoeForConditionalGeneration
    Exaone4_5_ForConditionalGeneration FireRedASR2ForConditionalGeneration
    FunASRForConditionalGeneration FunAudioChatForConditionalGeneration GLM4VForCausalLM
    Gemma3ForConditionalGeneration Gemma3nForConditionalGeneration
    Gemma4ForConditionalGeneration Gemma4UnifiedForConditionalGeneration
    Glm4vForConditionalGeneration Glm4vMoeForConditionalGeneration
    Glm5NextForConditionalGeneration GlmAsrForConditionalGeneration
    GlmOcrForConditionalGeneration Granite4VisionForConditionalGeneration
    GraniteSpeechForConditionalGeneration GraniteSpeechPlusForConditionalGeneration
    H2OVLChatModel HfMoondream Idefics3ForConditionalGeneration InternS1ForConditionalGeneration
    InternS1ProForConditionalGeneration InternS2MobiusForConditionalGeneration
    InternS2PreviewForConditionalGeneration InternVLChatModel InternVLForConditionalGeneration
    IsaacForConditionalGeneration KananaVForConditionalGeneration KeyeForConditionalGeneration
    KeyeVL1_5ForConditionalGeneration KimiK25ForConditionalGeneration
    KimiK3ForConditionalGeneration KimiVLForConditionalGeneration Lfm2VlForConditionalGeneration
    LightOnOCRForConditionalGeneration Llama4ForConditionalGeneration Llama_Nemotron_Nano_VL
    LlavaForConditionalGeneration LlavaNextForConditionalGeneration
    LlavaNextVideoForConditionalGeneration LlavaOnevision2ForConditionalGeneration
    LlavaOnevisionForConditionalGeneration MiDashengLMModel MiMoV2OmniForCausalLM MiniCPMO
    MiniCPMOcrForConditionalGeneration MiniCPMV MiniCPMV4_6ForConditionalGeneration
    MiniCPMV4_7ForConditionalGeneration MiniMaxM3SparseForConditionalGeneration
    Mistral3ForConditionalGeneration Molmo2ForConditionalGeneration MolmoForCausalLM
    Moondream3ForCausalLM MoonshotKimiaForCausalLM MossAudioModel
    MossTranscribeDiarizeForConditionalGeneration MuseGlimmerForConditionalGeneration
    MuseSparkForConditionalGeneration NVLM_D NemotronH_Nano_Omni_Reasoning_V3
    NemotronH_Nano_VL_V2 NemotronH_Omni_Reasoning_V3 NemotronH_Super_Omni_Reasoning_V3
    NemotronParseForConditionalGeneration OpenCUAForConditionalGeneration
    OpenPanguVLForConditionalGeneration OpenVLAForActionPrediction Ovis Ovis2_5
    Ovis2_6ForCausalLM Ovis2_6_MoeForCausalLM PaddleOCRVLForConditionalGeneration
    PaliGemmaForConditionalGeneration Phi3VForCausalLM Phi4ForCausalLMV Phi4MMForCausalLM
    PixtralForConditionalGeneration QianfanOCRForConditionalGeneration
    Qwen2AudioForConditionalGeneration Qwen2VLForConditionalGeneration
    Qwen2_5OmniForConditionalGeneration Qwen2_5OmniModel Qwen2_5_VLForConditionalGeneration
    Qwen3ASRForConditionalGeneration Qwen3ASRRealtimeGeneration
    Qwen3OmniMoeForConditionalGeneration Qwen3VLForConditionalGeneration
    Qwen3VLMoeForConditionalGeneration Qwen3_5ForConditionalGeneration
    Qwen3_5MoeForConditionalGeneration Qwen4ExpForConditionalGeneration
    RForConditionalGeneration RadioMBartPrefixForCausalLM SkyworkR1VChatModel
    SmolVLMForConditionalGeneration Step3VLForConditionalGeneration
    Step3p7ForConditionalGeneration Step5ForConditionalGeneration StepVLForConditionalGeneration
    UltravoxModel UnlimitedOCRForCausalLM VoxtralForConditionalGeneration
    VoxtralRealtimeGeneration WhisperForConditionalGeneration
""".split())

#: ``config.json`` keys of a vision or audio encoder's sub-config
MEDIA_CONFIG_KEYS = ("vision_config", "audio_config", "vision_tower_config", "speech_config")


def is_multimodal(config: dict[str, Any] | None, params: dict[str, Any] | None = None) -> bool:
    """Whether ``config.json`` (or, for a folder in Mistral's format, its ``params.json``)
    describes a model that takes media parts (rules above)."""
    if params:  # vLLM's mistral config adapter: a vision encoder, or a Whisper audio encoder
        mm = params.get("multimodal") if isinstance(params.get("multimodal"), dict) else {}
        whisper = mm.get("whisper_model_args")
        if (mm.get("vision_encoder_args") or params.get("vision_encoder")
                or (isinstance(whisper, dict) and whisper.get("encoder_args"))):
            return True
    if not config:
        return False
    architectures = config.get("architectures")
    if isinstance(architectures, list) and any(
            isinstance(a, str) and a in VLLM_MULTIMODAL_ARCHITECTURES for a in architectures):
        return True
    return any(isinstance(config.get(key), dict) for key in MEDIA_CONFIG_KEYS)
