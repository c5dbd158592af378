# From PyTorch's tutorial "Writing Custom Datasets, DataLoaders and Transforms" (the collate_fn / DataLoader-arguments part), all arguments by position.
import torch
import torch.utils.data as tud


class SquaresDataset(tud.Dataset):
    def __len__(self):
        return 5000

    def __getitem__(self, i):
        return torch.tensor([i * i])


def pad_collate(batch):
    return torch.nn.utils.rnn.pad_sequence(batch, batch_first=True)


loader = tud.DataLoader(SquaresDataset(), 64, True, None, None, 8,  # dataset .. num_workers
                        pad_collate, True, True,                   # collate_fn, pin_memory, drop_last
                        prefetch_factor=4, persistent_workers=True)
