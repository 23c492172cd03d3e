`timescale 1ns/1ps
// mkeysim_formats: the bit positions of the PRM images' fields, in wire
// order (byte 0 in the top byte), as the golden vectors' packages give
// them. Generated from the model's format tables: do not edit
// (go test ./live -run TestFormatsPackage -args -update rewrites it).
package mkeysim_formats;

  // mkc image (512 bits, wire order: byte 0 in the top byte), translation.md 2.2:
  // <FORMAT>_<FIELD>_MSB/_LSB, or _P<k>_MSB/_LSB for a field in several parts
  // (part 0 most significant).
  localparam int MKC_FREE_MSB = 510, MKC_FREE_LSB = 510;
  // MKC_ACCESS_MODE: translation.md's access_mode_4_2 (00h 28:26) and
  // access_mode_1_0 (00h 9:8): access_mode = (access_mode_4_2 << 2) |
  // access_mode_1_0
  localparam int MKC_ACCESS_MODE_P0_MSB = 508, MKC_ACCESS_MODE_P0_LSB = 506;
  localparam int MKC_ACCESS_MODE_P1_MSB = 489, MKC_ACCESS_MODE_P1_LSB = 488;
  localparam int MKC_RELAXED_ORDERING_WRITE_MSB = 498, MKC_RELAXED_ORDERING_WRITE_LSB = 498;
  localparam int MKC_SMALL_FENCE_ON_RDMA_READ_RESPONSE_MSB = 496, MKC_SMALL_FENCE_ON_RDMA_READ_RESPONSE_LSB = 496;
  localparam int MKC_UMR_EN_MSB = 495, MKC_UMR_EN_LSB = 495;
  localparam int MKC_A_MSB = 494, MKC_A_LSB = 494;
  localparam int MKC_RW_MSB = 493, MKC_RW_LSB = 493;
  localparam int MKC_RR_MSB = 492, MKC_RR_LSB = 492;
  localparam int MKC_LW_MSB = 491, MKC_LW_LSB = 491;
  localparam int MKC_LR_MSB = 490, MKC_LR_LSB = 490;
  localparam int MKC_TUNNELED_ATOMIC_MSB = 486, MKC_TUNNELED_ATOMIC_LSB = 486;
  localparam int MKC_MA_TRANSLATION_MODE_MSB = 485, MKC_MA_TRANSLATION_MODE_LSB = 484;
  localparam int MKC_SF_MSB = 483, MKC_SF_LSB = 480;
  localparam int MKC_QPN_MSB = 479, MKC_QPN_LSB = 456;
  // MKC_VARIANT: translation.md's mkey[7:0] (04h 7:0, the variant this context
  // accepts)
  localparam int MKC_VARIANT_MSB = 455, MKC_VARIANT_LSB = 448;
  localparam int MKC_PASID_MSB = 439, MKC_PASID_LSB = 416;
  localparam int MKC_LENGTH64_MSB = 415, MKC_LENGTH64_LSB = 415;
  localparam int MKC_BSF_EN_MSB = 414, MKC_BSF_EN_LSB = 414;
  localparam int MKC_EXPECTED_SIGERR_COUNT_MSB = 410, MKC_EXPECTED_SIGERR_COUNT_LSB = 410;
  localparam int MKC_EN_RINVAL_MSB = 408, MKC_EN_RINVAL_LSB = 408;
  localparam int MKC_PD_MSB = 407, MKC_PD_LSB = 384;
  localparam int MKC_START_ADDR_MSB = 383, MKC_START_ADDR_LSB = 320;
  localparam int MKC_LEN_MSB = 319, MKC_LEN_LSB = 256;
  localparam int MKC_BSF_OCTWORD_SIZE_MSB = 255, MKC_BSF_OCTWORD_SIZE_LSB = 224;
  localparam int MKC_BSF_HANDLE_MSB = 207, MKC_BSF_HANDLE_LSB = 160;
  localparam int MKC_MTT_HANDLE_MSB = 143, MKC_MTT_HANDLE_LSB = 96;
  localparam int MKC_TRANSLATIONS_OCTWORD_SIZE_MSB = 95, MKC_TRANSLATIONS_OCTWORD_SIZE_LSB = 64;
  localparam int MKC_RELAXED_ORDERING_READ_MSB = 38, MKC_RELAXED_ORDERING_READ_LSB = 38;
  localparam int MKC_LOG_ENTITY_SIZE_MSB = 36, MKC_LOG_ENTITY_SIZE_LSB = 32;
  localparam int MKC_CRYPTO_EN_MSB = 28, MKC_CRYPTO_EN_LSB = 27;
  localparam int MKC_GENERATION_COUNTER_MSB = 15, MKC_GENERATION_COUNTER_LSB = 0;

  // mtt_entry image (64 bits, wire order: byte 0 in the top byte), translation.md 2.3:
  // <FORMAT>_<FIELD>_MSB/_LSB, or _P<k>_MSB/_LSB for a field in several parts
  // (part 0 most significant).
  // MTT_ENTRY_PTAG: translation.md's ptag[63:8] (00h 31:0 ptag[63:32], 04h 31:8
  // ptag[31:8]; ptag[7:0] is 0)
  localparam int MTT_ENTRY_PTAG_MSB = 63, MTT_ENTRY_PTAG_LSB = 8;
  localparam int MTT_ENTRY_WR_EN_MSB = 1, MTT_ENTRY_WR_EN_LSB = 1;
  localparam int MTT_ENTRY_RD_EN_MSB = 0, MTT_ENTRY_RD_EN_LSB = 0;

  // klm_entry image (128 bits, wire order: byte 0 in the top byte), translation.md 2.4:
  // <FORMAT>_<FIELD>_MSB/_LSB, or _P<k>_MSB/_LSB for a field in several parts
  // (part 0 most significant).
  localparam int KLM_ENTRY_BYTE_COUNT_MSB = 127, KLM_ENTRY_BYTE_COUNT_LSB = 96;
  localparam int KLM_ENTRY_MKEY_MSB = 95, KLM_ENTRY_MKEY_LSB = 64;
  localparam int KLM_ENTRY_ADDRESS_MSB = 63, KLM_ENTRY_ADDRESS_LSB = 0;
endpackage
