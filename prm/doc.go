// Package prm packs and parses the bit-exact formats of the HCA memory
// translation path, as laid out in the PRM digest (translation.md section 2):
// the MKey, the 64-byte MKey Context, MTT and KLM entries and the UMR control
// segment with its mkey_ctx_mask. It also packs the send-queue WQEs that
// carry them (control, remote address, atomic and data segments; UMR, local
// invalidate and send WQEs) and the 64-byte CQE as the Linux mlx5 driver
// lays them out; their parsers report a value a layout forbids as a
// *FieldError. For the ATC it holds the PCIe ATS formats of fixed layout
// (PCI Express Base Specification, chapter 10): the Translation Completion
// Data Entry, a Translation Request's address with its No Write flag, the
// Invalidate Request's payload and the message-specific header dwords of
// the Invalidate Request and Invalidate Completion, with the S-bit range
// encoding (ATSRange); the rest of a TLP is rtl/pcie's.
//
// Every dword is big-endian and bit 31 is its most significant bit. This is
// the only package of mkeysim that knows a bit offset: everything else works
// on the value types declared here. Packing writes reserved bits as 0;
// parsing reports any reserved bit it finds set as a *ReservedBitsError
// beside the fully parsed value, and a buffer of the wrong length as a
// *SizeError.
//
// Beside the formats, prm holds the vocabulary the models share: the access
// types with the MKC right and MTT page bits each needs (translation.md 1),
// the translated Segment, and the Status names of translation.md.
package prm
