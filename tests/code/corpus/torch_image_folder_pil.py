# The image-folder Dataset people write for ImageNet-style training (as in pytorch/examples' imagenet and countless issues about slow loading): files listed with glob at run time, each opened with PIL and transformed by torchvision.
import glob
import os

from PIL import Image
from torch.utils.data import DataLoader, Dataset
from torchvision import transforms


class ImageFolderDataset(Dataset):
    def __init__(self, root, transform=None):
        self.files = sorted(glob.glob(os.path.join(root, "*", "*.JPEG")))
        self.classes = sorted(os.listdir(root))
        self.transform = transform

    def __len__(self):
        return len(self.files)

    def __getitem__(self, index):
        path = self.files[index]
        image = Image.open(path).convert("RGB")
        label = self.classes.index(os.path.basename(os.path.dirname(path)))
        if self.transform is not None:
            image = self.transform(image)
        return image, label


train_transform = transforms.Compose([
    transforms.RandomResizedCrop(224),
    transforms.RandomHorizontalFlip(),
    transforms.ToTensor(),
    transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]),
])
train_loader = DataLoader(ImageFolderDataset("/data/imagenet/train", train_transform),
                          batch_size=256, shuffle=True, num_workers=16, pin_memory=True,
                          persistent_workers=True)
